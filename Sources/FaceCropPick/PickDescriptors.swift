import Foundation
import FaceCropCore
import FaceCropPeople

/// The face descriptors `--people` wrote to embeddings.npy, read back for
/// pick: row `n` is the descriptor of the manifest line whose `embedding`
/// is `n`. Read whole (512 bytes a face: 51 MB for 100,000 faces).
package struct PickDescriptors {
    private let values: [Float]
    package let rows: Int

    /// The dataset's embeddings.npy; nil when it has none or it is not a
    /// float32 array of `Embedding.size` columns (pick then works without).
    package init?(dataset: String) {
        guard let data = FileManager.default.contents(atPath: dataset + "/" + EmbeddingsFile.fileName), data.count > 10,
            data.prefix(6) == Data([0x93] + Array("NUMPY".utf8))
        else { return nil }
        let headerLength = Int(data[data.startIndex + 8]) | Int(data[data.startIndex + 9]) << 8
        let start = 10 + headerLength
        let header = String(decoding: data.prefix(start).dropFirst(10), as: UTF8.self)
        guard header.contains("'<f4'"), header.contains(", \(Embedding.size))"), data.count >= start else { return nil }
        let count = (data.count - start) / 4
        var values = [Float](repeating: 0, count: count)
        data.dropFirst(start).withUnsafeBytes { raw in
            for index in 0..<count {
                values[index] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
            }
        }
        self.values = values
        rows = count / Embedding.size
    }

    /// Whether rows `a` and `b` are at most `limit` apart (Euclidean,
    /// dlib's measure: two photos of one person are usually under 0.6
    /// apart); false for a row the file does not have. Stops adding as soon
    /// as the sum passes the limit: most pairs are far apart.
    package func within(_ limit: Float, _ a: Int, _ b: Int) -> Bool {
        guard a >= 0, b >= 0, a < rows, b < rows else { return false }
        let n = Embedding.size
        let bound = limit * limit
        return values.withUnsafeBufferPointer { all in
            var sum: Float = 0
            for k in 0..<n {
                let d = all[a * n + k] - all[b * n + k]
                sum += d * d
                if sum > bound { return false }
            }
            return true
        }
    }
}
