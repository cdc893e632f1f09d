
import Foundation

/// One face's descriptor from dlib's ResNet: 128 numbers; two faces of one
/// person lie within about 0.6 of each other (Euclidean).
package struct Embedding: Sendable, Equatable {
    package static let size = 128  // CFaceDetect_EmbeddingSize; EmbeddingTests checks that they agree
    package var values: [Float]

    /// As stored in the state file: the floats' little-endian bytes, base64.
    package var base64: String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(values.count * 4)
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        return Data(bytes).base64EncodedString()
    }

    package init(_ values: [Float]) { self.values = values }

    package init?(base64: String) {
        guard let data = Data(base64Encoded: base64), data.count == Self.size * 4 else { return nil }
        let bytes = [UInt8](data)
        values = (0..<Self.size).map { i in
            var bits: UInt32 = 0
            for b in 0..<4 { bits |= UInt32(bytes[4 * i + b]) << (8 * UInt32(b)) }
            return Float(bitPattern: bits)
        }
    }
}
