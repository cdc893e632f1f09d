import Foundation

/// manifest.jsonl read one line at a time (getline), so a manifest of a
/// million crops never sits in memory. Each element is one line without its
/// newline, with the fields the exports need already picked out.
struct ManifestLines: Sequence {
    let path: String

    /// One manifest line: its exact text (re-serialising would risk changing
    /// how a number is written) and the two fields that decide what to do
    /// with it.
    struct Line {
        var text: String
        /// The parsed object (JSONSerialization's types).
        var object: [String: Any]
        var status: String
        /// The crop path relative to the dataset folder ("" without a crop).
        var crop: String
    }

    func makeIterator() -> Iterator { Iterator(file: fopen(path, "r")) }

    /// Not thread-safe: owns a FILE and getline's buffer; used by one loop.
    final class Iterator: IteratorProtocol {
        private let file: UnsafeMutablePointer<FILE>?
        private var buffer: UnsafeMutablePointer<CChar>?
        private var capacity = 0

        fileprivate init(file: UnsafeMutablePointer<FILE>?) { self.file = file }

        deinit {
            if let file { fclose(file) }
            free(buffer)
        }

        func next() -> Line? {
            guard let file else { return nil }
            while true {
                let length = getline(&buffer, &capacity, file)
                guard length > 0, let buffer else { return nil }
                var count = length
                if buffer[count - 1] == 0x0A { count -= 1 }
                if count == 0 { continue }
                let data = Data(bytes: buffer, count: count)
                guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
                let text = String(decoding: data, as: UTF8.self)
                return Line(text: text, object: object, status: object["status"] as? String ?? "", crop: object["crop"] as? String ?? "")
            }
        }
    }
}

extension ManifestLines.Line {
    /// A sample of a training set: a crop that was kept (`status: ok`), not a
    /// photo without a face, a failure, or a crop set aside (rejected,
    /// duplicate).
    var isSample: Bool { status == "ok" && !crop.isEmpty }
}
