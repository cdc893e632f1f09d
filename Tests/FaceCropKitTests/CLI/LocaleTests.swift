import Foundation
import Testing

/// facecrop gives the same outputs and messages with no locale at all (LANG
/// and LC_* unset, as on a fresh CI machine or container) as under
/// C.UTF-8: names with accents, CJK and emoji, a name that is not UTF-8, the
/// errors about them, the manifest, the card and the crops' names.
struct LocaleTests {
    @Test func noLocaleGivesTheSameDatasetAndMessagesAsUTF8() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        let named: [(String, String)] = [
            ("faces/astronaut.jpg", "Été 2024/Zoë é.jpg"), ("faces/grace_hopper.jpg", "日本/写真 😀.jpg"),
            ("noface/coffee.jpg", "café.jpg"),
        ]
        for (fixture, name) in named {
            let target = photos.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(fixture), to: target)
        }
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("kaputt"), withIntermediateDirectories: true)
        try Data("not a photo".utf8).write(to: photos.appendingPathComponent("kaputt/ünlesbar.jpg"))
        // A name that is not UTF-8 (bytes 0xFF 0xFE), made through the C call.
        let bytes = (Array(photos.path.utf8) + Array("/bad".utf8) + [0xFF, 0xFE] + Array("name.jpg".utf8) + [0])
            .map { CChar(bitPattern: $0) }
        let source = open(fixtures.appendingPathComponent("faces/two-people.jpg").path, O_RDONLY)
        let fd = creat(bytes, 0o644)
        #expect(source >= 0 && fd >= 0)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(source, &buffer, buffer.count)
            if count <= 0 { break }
            _ = write(fd, buffer, count)
        }
        close(source)
        close(fd)

        var bare = ProcessInfo.processInfo.environment
        for name in bare.keys where name == "LANG" || name == "LANGUAGE" || name.hasPrefix("LC_") { bare[name] = nil }
        var utf8 = bare
        utf8["LANG"] = "C.UTF-8"
        var results: [(status: Int32, stderr: String, files: [String: Data])] = []
        for (index, environment) in [bare, utf8].enumerated() {
            let output = work.appendingPathComponent("run\(index)/out")
            let run = try runFaceCrop([photos.path, "-o", output.path, "-q", "--size", "96"], environment: environment)
            var files: [String: Data] = [:]
            let walker = FileManager.default.enumerator(atPath: output.path)!
            while let name = walker.nextObject() as? String {
                guard !name.hasPrefix(".facecrop"), !name.hasPrefix("report"), !name.hasPrefix("stats") else { continue }
                let path = output.appendingPathComponent(name).path
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                    files[name] = FileManager.default.contents(atPath: path)
                }
            }
            results.append((run.status, run.stderr, files))
        }
        #expect(results[0].status == 1 && results[1].status == 1)  // the unreadable photo
        #expect(results[0].stderr == results[1].stderr)
        #expect(results[0].stderr.contains("'kaputt/ünlesbar.jpg': not a readable image"))
        #expect(results[0].files == results[1].files)
        #expect(results[0].files.keys.contains("Été 2024/Zoë é.jpg.face0.jpg"))
        #expect(results[0].files.keys.contains("日本/写真 😀.jpg.face0.jpg"))
        let manifest = String(decoding: results[0].files["manifest.jsonl"] ?? Data(), as: UTF8.self)
        #expect(manifest.contains("\"source\": \"Été 2024/Zoë é.jpg\"") && manifest.contains("\"source_bytes\": "))
    }
}
