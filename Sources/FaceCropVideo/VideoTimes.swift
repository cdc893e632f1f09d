import Foundation

/// A video's sizes and times as its records and crop names say them.
extension VideoStage {
    /// The size a frame of `full` pixels is scaled to for detection: its
    /// long side `side` (never enlarged), the other in proportion, rounded
    /// to the nearest pixel, as libvips' `vips_thumbnail` (the photo's
    /// detection decode) sizes it.
    package static func detectionSize(_ full: (width: Int, height: Int), side: Int) -> (width: Int, height: Int) {
        let long = max(full.width, full.height)
        guard long > side, side > 0 else { return full }
        let other = { (short: Int) in max(1, Int((Double(short) * Double(side) / Double(long)).rounded())) }
        return full.width >= full.height ? (side, other(full.height)) : (other(full.width), side)
    }

    /// Seconds from the first frame, to the microsecond.
    package static func time(_ ticks: Int, probe: VideoProbe) -> Double {
        rounded(Double(max(0, ticks)) * Double(probe.timeBase.num) / Double(probe.timeBase.den))
    }

    package static func rounded(_ seconds: Double) -> Double { (seconds * 1_000_000).rounded() / 1_000_000 }

    /// `t000012.345`: the time in whole milliseconds (rounded down), for crop names.
    package static func timeTag(_ ticks: Int, probe: VideoProbe) -> String {
        let ms = max(0, ticks) * probe.timeBase.num * 1000 / probe.timeBase.den
        let whole = String(ms / 1000)
        let part = String(ms % 1000)
        return "t" + String(repeating: "0", count: max(0, 6 - whole.count)) + whole + "."
            + String(repeating: "0", count: 3 - part.count) + part
    }

    /// The frame's number in presentation order: how many packets come before it.
    package static func frameNumber(_ pts: Int, packets: [Int]) -> Int {
        var low = 0
        var high = packets.count
        while low < high {
            let middle = (low + high) / 2
            if packets[middle] < pts { low = middle + 1 } else { high = middle }
        }
        return low
    }

    package static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }
}
