import Foundation
import FaceCropCore
import FaceCropOutput
import FaceCropFinish
import FaceCropPick

/// `facecrop export webdataset <dataset> <out> [--shard-size N]`: the
/// dataset's crops as WebDataset tar shards, `faces-000000.tar`, ..., each
/// sample a crop (`<key>.jpg`, `.png` or `.webp`) followed by its manifest
/// line (`<key>.json`), in manifest order. Streams: one crop in memory at a
/// time. Each shard is written under a temporary name and renamed; shards a
/// longer earlier export left beyond the new last one are removed.
package enum ExportCommand {
    package static let usage = "Usage: facecrop export webdataset <dataset> <out> [--shard-size N] [--quiet]"
    package static let defaultShardSize = 10_000
    package static let help = """
        \(usage)

        Writes the crops of <dataset> (a facecrop output folder) as WebDataset
        shards <out>/faces-000000.tar, ... with at most N samples each (default
        \(defaultShardSize)). Each sample is <key>.<ext> (the crop) followed by
        <key>.json (its manifest.jsonl line). The key is the crop's path without
        its extension, with '%' written as %25, '/' as %2F and '.' as %2E, so it
        has no dot and the same face gets the same key on every export.
        Only crops with status ok are samples.

        Options:
          --shard-size N   Samples per shard (default \(defaultShardSize)).
          -q, --quiet      No summary on stderr.
          -h, --help       Show this help.

        Also: facecrop export xmp <dataset> <out> writes XMP sidecars with the
        named faces, for digiKam, Lightroom and exiftool (export xmp --help).

        """

    package struct Request {
        package var dataset = ""
        package var output = ""
        package var shardSize = defaultShardSize
        package var quiet = false
    }

    package static func run(_ arguments: [String], stop: StopRequest, temporaries: TemporaryFiles) -> Int32 {
        if arguments.first == "xmp" { return XMPExport.run(Array(arguments.dropFirst()), temporaries: temporaries) }
        if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
            Terminal.stdout(help)
            return ExitStatus.success
        }
        let request: Request
        do throws(FaceCropError) {
            request = try parse(arguments)
        } catch {
            Terminal.stderr("Error: \(error.description)\n\(usage)\nSee 'facecrop export --help' for more information.\n")
            return ExitStatus.usage
        }
        do throws(FaceCropError) {
            let (samples, shards) = try export(request, stop: stop, temporaries: temporaries)
            if let signal = stop.requested {
                return signal == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted
            }
            if !request.quiet {
                Terminal.stderr("facecrop: exported \(samples) samples in \(shards) shards -> '\(request.output)'\n")
            }
            return ExitStatus.success
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    package static func parse(_ arguments: [String]) throws(FaceCropError) -> Request {
        guard let format = arguments.first else { throw .usage("export needs a format: webdataset, xmp") }
        guard format == "webdataset" else { throw .usage("unknown export format '\(format)' (known: webdataset, xmp)") }
        var request = Request()
        var positional: [String] = []
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            if argument == "-q" || argument == "--quiet" {
                request.quiet = true
            } else if argument == "--shard-size" || argument.hasPrefix("--shard-size=") {
                let value = argument == "--shard-size" ? rest.popFirst() : String(argument.dropFirst("--shard-size=".count))
                guard let value else { throw .usage("option '--shard-size' needs a value") }
                guard let size = Int(value), size > 0 else {
                    throw .usage("invalid value '\(value)' for '--shard-size': expected a whole number of samples above 0")
                }
                request.shardSize = size
            } else if argument.hasPrefix("-") && argument != "-" {
                throw .usage("unknown option '\(argument)'" + Suggestion.clause(for: argument, among: ["-q", "--quiet", "--shard-size"]))
            } else {
                positional.append(argument)
            }
        }
        guard positional.count == 2 else {
            throw .usage(positional.count < 2 ? "export webdataset needs a dataset folder and an output folder" : "unexpected argument '\(positional[2])'")
        }
        request.dataset = positional[0]
        request.output = positional[1]
        return request
    }

    /// The shard file name for shard `index`.
    package static func shardName(_ index: Int) -> String {
        let digits = String(index)
        return "faces-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".tar"
    }

    /// The WebDataset key of a crop: its path without the extension, with
    /// `%`, `/` and `.` percent-encoded. WebDataset takes everything before
    /// the first dot of a member's name as the key, so the key has none; the
    /// encoding is one-to-one, so two crops never share a key.
    package static func key(forCrop crop: String) -> (key: String, ext: String) {
        let ext = (crop as NSString).pathExtension
        let stem = ext.isEmpty ? crop : String(crop.dropLast(ext.count + 1))
        var key = ""
        for character in stem.unicodeScalars {
            switch character {
            case "%": key += "%25"
            case "/": key += "%2F"
            case ".": key += "%2E"
            default: key.unicodeScalars.append(character)
            }
        }
        return (key, ext.lowercased())
    }

    /// Writes the shards; returns how many samples and shards.
    package static func export(_ request: Request, stop: StopRequest, temporaries: TemporaryFiles) throws(FaceCropError) -> (Int, Int) {
        let manifest = request.dataset + "/" + Manifest.fileName
        var info = stat()
        guard stat(request.dataset, &info) == 0 else { throw .inputMissing(request.dataset, reason: systemError(errno)) }
        guard access(manifest, R_OK) == 0 else {
            throw .inputMissing(request.dataset, reason: "no readable \(Manifest.fileName) (\(systemError(errno))): not a facecrop dataset")
        }
        do throws(WriteFailure) {
            try AtomicFile.makeFolder(request.output)
        } catch {
            throw .outputUnusable(request.output, reason: error.reason)
        }
        var samples = 0
        var shard: TarWriter?
        func writing(_ body: () throws(WriteFailure) -> Void) throws(FaceCropError) {
            do throws(WriteFailure) { try body() } catch { throw .outputUnusable(request.output, reason: error.reason) }
        }
        for line in ManifestLines(path: manifest) where line.isSample {
            // Stopped: the shard being written goes (its temporary file is
            // removed); the finished ones stay.
            if stop.requested != nil { return (samples, samples / request.shardSize) }
            if samples % request.shardSize == 0 {
                try writing { () throws(WriteFailure) in
                    try shard?.commit()
                    shard = try TarWriter(path: request.output + "/" + shardName(samples / request.shardSize), temporaries: temporaries)
                }
            }
            guard let crop = FileManager.default.contents(atPath: request.dataset + "/" + line.crop) else {
                throw .inputMissing(request.dataset, reason: "cannot read crop '\(line.crop)' named in \(Manifest.fileName); run facecrop on it again")
            }
            let (key, ext) = key(forCrop: line.crop)
            try writing { () throws(WriteFailure) in
                try shard?.add(name: key + "." + ext, contents: crop)
                try shard?.add(name: key + ".json", contents: Array(line.text.utf8))
            }
            samples += 1
        }
        try writing { () throws(WriteFailure) in try shard?.commit() }
        let shards = (samples + request.shardSize - 1) / request.shardSize
        removeStaleShards(from: shards, in: request.output)
        return (samples, shards)
    }

    /// Removes `faces-NNNNNN.tar` files numbered `first` and above (left by an
    /// earlier export of more samples or smaller shards).
    package static func removeStaleShards(from first: Int, in folder: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix("faces-") && name.hasSuffix(".tar") {
            let digits = name.dropFirst("faces-".count).dropLast(".tar".count)
            guard digits.count == 6, digits.allSatisfy(\.isASCII), let index = Int(digits), index >= first else { continue }
            unlink(folder + "/" + name)
        }
    }
}
