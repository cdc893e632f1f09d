/// How hard a JPEG file was compressed: the quality (1-100, IJG's scale)
/// its luminance quantisation table was made with, read from the file's
/// header. The quality record's `jpeg` factor uses it: a photo saved at
/// quality 8 is blocky whatever size it is decoded at, which the decode's
/// own blocking (`blocking`) sees only at full size.
package enum JPEGQuality {
    /// IJG's (libjpeg's) luminance table at quality 50, in zigzag order as a file stores it.
    private static let standard: [Double] = [
        16, 11, 12, 14, 12, 10, 16, 14, 13, 14, 18, 17, 16, 19, 24, 40, 26, 24, 22, 22, 24, 49, 35, 37, 29, 40, 58, 51,
        61, 60, 57, 51, 56, 55, 64, 72, 92, 78, 64, 68, 87, 69, 55, 56, 80, 109, 81, 87, 95, 98, 103, 104, 103, 62, 77,
        113, 121, 112, 100, 120, 92, 101, 103, 99,
    ]

    /// The quality of the first quantisation table in `head` (the file's
    /// first bytes); nil: not a JPEG, or no table before the image data.
    package static func estimate(_ head: [UInt8]) -> Int? {
        guard head.count > 4, head[0] == 0xFF, head[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= head.count, head[at] == 0xFF {
            let marker = head[at + 1]
            let length = Int(head[at + 2]) << 8 | Int(head[at + 3])
            if marker == 0xDA || length < 2 { return nil }  // image data: no table came first
            if marker == 0xDB, at + 4 + 1 + 64 <= head.count {
                let precision = head[at + 4] >> 4
                guard precision == 0 else { return nil }  // 16-bit tables: not IJG's scale
                // Below quality 24 IJG clips the table's larger entries at 255
                // (baseline tables): only the entries under 255 tell the
                // scale (with them all, a file saved at 10 read as 12, at 5 as
                // 9). Every entry clipped: the scale is at least 255 over
                // the smallest entry.
                var (scale, counted) = (0.0, 0.0)
                for i in 0..<64 where head[at + 5 + i] < 255 {
                    scale += Double(head[at + 5 + i]) * 100 / standard[i]
                    counted += 1
                }
                scale = counted > 0 ? scale / counted : 25_500 / (standard.min() ?? 10)
                // IJG: scale = 5000 / q below 50, 200 - 2q above.
                let quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale
                return max(1, min(100, Int(quality.rounded())))
            }
            at += 2 + length
        }
        return nil
    }
}
