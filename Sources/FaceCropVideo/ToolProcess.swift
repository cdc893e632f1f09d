import Foundation
import FaceCropCore

/// Why ffmpeg or ffprobe could not be started.
package enum LaunchFailure: Error {
    /// The file its stderr was to go to could not be made.
    case stderrFile(String)
    /// The system did not start it: its reason.
    case notStarted(String)

    /// The words every caller's message has carried.
    package var reason: String {
        switch self {
        case .stderrFile(let path): "cannot create '\(path)'"
        case .notStarted(let why): why
        }
    }
}

/// One ffmpeg or ffprobe subprocess: the one place either is started, its
/// pipes wired, its stderr kept and its exit status read, so that the
/// probe, the frame reader and the clip writer differ only in what they
/// ask of it. Not thread-safe: owned by the one task that started it.
package final class ToolProcess {
    /// stdin: nothing (/dev/null), or a pipe the owner writes (`input`).
    package enum Input { case none, pipe }
    /// stdout: nowhere (/dev/null), or a pipe the owner reads (`output`).
    package enum Output { case none, pipe }
    /// stderr.
    package enum Errors {
        /// Into the file at this path, created (or emptied) first.
        case file(String)
        /// Into stdout's pipe, read with it.
        case withOutput
        /// A pipe of its own (`errors`): the owner reads it as it comes (a
        /// full pipe would stall the tool), or `collect` does.
        case pipe
    }

    private let process = Process()
    /// stdin's write end (`Input.pipe`).
    package let input: FileHandle?
    /// stdout's read end (`Output.pipe`, or stderr's too with `withOutput`).
    package let output: FileHandle?
    /// stderr's read end (`Errors.pipe`).
    package let errors: FileHandle?
    private let errorsGo: Errors
    private var ended = false

    package init(_ tool: FFmpeg, _ arguments: [String], input: Input = .none, output: Output = .pipe, errors: Errors)
        throws(LaunchFailure)
    {
        process.executableURL = URL(fileURLWithPath: tool.path)
        process.arguments = arguments
        errorsGo = errors
        let stdin = input == .pipe ? Pipe() : nil
        process.standardInput = stdin ?? FileHandle.nullDevice
        let stdout = output == .pipe || errors.isWithOutput ? Pipe() : nil
        process.standardOutput = stdout ?? FileHandle.nullDevice
        var stderr: Pipe?
        var errorFile: FileHandle?
        switch errors {
        case .file(let path):
            guard FileManager.default.createFile(atPath: path, contents: nil),
                let handle = FileHandle(forWritingAtPath: path)
            else { throw .stderrFile(path) }
            errorFile = handle
            process.standardError = handle
        case .withOutput: process.standardError = stdout
        case .pipe:
            stderr = Pipe()
            process.standardError = stderr
        }
        do {
            try process.run()
        } catch {
            try? errorFile?.close()
            throw .notStarted((error as NSError).localizedDescription)
        }
        try? errorFile?.close()
        // Our copy of stdin's read end must go, or a tool that exits early
        // would leave the owner's writes blocked instead of failing with EPIPE.
        try? stdin?.fileHandleForReading.close()
        self.input = stdin?.fileHandleForWriting
        self.output = stdout?.fileHandleForReading
        self.errors = stderr?.fileHandleForReading
    }

    package var isRunning: Bool { process.isRunning }

    /// Sends `signal` if it is still running.
    package func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Ends stdin (if ours) and waits for the tool: its exit status, or 128 +
    /// the signal that killed it.
    package func wait() -> Int32 {
        if !ended {
            ended = true
            try? input?.close()
            process.waitUntilExit()
        }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// What went to the stderr file (`Errors.file`); "" otherwise.
    package var loggedErrors: String {
        guard case .file(let path) = errorsGo else { return "" }
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Runs it to the end: stdout read whole (keep it small), stderr from
    /// its file, its share of stdout, or its own pipe (read on a thread of
    /// its own, so that neither pipe fills and stalls the tool).
    package func collect() -> FFmpegRun {
        var text: ErrorText?
        if let errors {
            let reader = ErrorText()
            Thread { reader.take(errors.readDataToEndOfFile()) }.start()
            text = reader
        }
        let bytes = output.map { [UInt8]($0.readDataToEndOfFile()) } ?? []
        let status = wait()
        switch errorsGo {
        case .withOutput: return FFmpegRun(status: status, stdout: [], stderr: String(decoding: bytes, as: UTF8.self))
        case .file: return FFmpegRun(status: status, stdout: bytes, stderr: loggedErrors)
        case .pipe: return FFmpegRun(status: status, stdout: bytes, stderr: text?.wait() ?? "")
        }
    }
}

extension ToolProcess.Errors {
    fileprivate var isWithOutput: Bool {
        if case .withOutput = self { return true }
        return false
    }
}

/// Text a thread reads from a pipe, handed to the one that waits for it.
private final class ErrorText: @unchecked Sendable {
    // Sendable by its condition: `text` is touched only while it is held.
    private let condition = NSCondition()
    private var text: String?

    func take(_ data: Data) {
        condition.lock()
        text = String(decoding: data, as: UTF8.self)
        condition.signal()
        condition.unlock()
    }

    func wait() -> String {
        condition.lock()
        defer { condition.unlock() }
        while text == nil { condition.wait() }
        return text ?? ""
    }
}
