import Foundation

/// When a photo was taken, as the manifest's `taken` says it: the clock
/// reading where it was taken, `YYYY-MM-DDTHH:MM:SS` (ISO 8601, whole
/// seconds), then its offset from UTC when that is known (`+02:00`, or `Z`
/// for a time given in UTC, as a Takeout sidecar's is); without an offset it
/// is a local time whose zone is not known (EXIF without OffsetTimeOriginal).
package struct CaptureTime: Sendable, Equatable, CustomStringConvertible {
    /// `YYYY-MM-DDTHH:MM:SS`: fixed width, so clock readings compare as text.
    package var clock: String
    /// `+HH:MM`, `-HH:MM`, `Z`, or nil (not known).
    package var offset: String?

    package var description: String { clock + (offset ?? "") }

    /// From EXIF's DateTimeOriginal ("2019:07:04 12:30:05") and
    /// OffsetTimeOriginal ("+02:00"), each as libvips shows a field (the
    /// value, then its description in parentheses). nil for a blank or
    /// impossible date ("0000:00:00 00:00:00", what some cameras write).
    package init?(exifDate: String, offset exifOffset: String) {
        let date = Array(exifDate.utf8.prefix(19))
        guard date.count == 19 else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digits.allSatisfy({ (48...57).contains(date[$0]) }),
            [4, 7].allSatisfy({ date[$0] == UInt8(ascii: ":") || date[$0] == UInt8(ascii: "-") }),
            date[10] == UInt8(ascii: " ") || date[10] == UInt8(ascii: "T"),
            [13, 16].allSatisfy({ date[$0] == UInt8(ascii: ":") })
        else { return nil }
        let text = String(decoding: date, as: UTF8.self)
        func number(_ from: Int, _ count: Int) -> Int {
            Int(text.dropFirst(from).prefix(count))!
        }
        let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
        let (hour, minute, second) = (number(11, 2), number(14, 2), number(17, 2))
        guard year >= 1800, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        clock = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, min(second, 59))
        offset = Self.offset(exifOffset)
    }

    /// From seconds since 1970 in UTC (a Takeout sidecar's `photoTakenTime`).
    package init?(unixSeconds: Int) {
        // Takeout writes 0 for a photo whose time it does not know.
        guard unixSeconds > 0, unixSeconds < 253_402_300_800 else { return nil }
        var seconds = time_t(unixSeconds)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
        clock = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        offset = "Z"
    }

    /// From an ISO 8601 time as video containers hold it:
    /// `2021-06-05T14:03:07+0200` (QuickTime's creationdate, the clock where
    /// it was filmed and its offset), `2020-01-02T03:04:05.000000Z` (a
    /// `creation_time`, UTC); fractions of a second are dropped, a missing
    /// offset is not known. nil for anything else, and for the zero times
    /// of a container that was never given one (1904-01-01 and 1970-01-01
    /// at midnight UTC).
    package init?(iso8601 text: String) {
        guard text.utf8.count >= 19, let time = CaptureTime(exifDate: String(text.prefix(19)), offset: "") else { return nil }
        var rest = Substring(text.dropFirst(19))
        if rest.first == "." || rest.first == "," {
            rest = rest.dropFirst().drop(while: { $0.isASCII && $0.isNumber })
        }
        if rest.isEmpty {
            self = time
            return
        }
        guard let offset = Self.offset(String(rest)), rest.count == (offset == "Z" ? 1 : rest.contains(":") ? 6 : 5) else {
            return nil
        }
        if offset == "Z" || offset == "+00:00", time.clock == "1904-01-01T00:00:00" || time.clock == "1970-01-01T00:00:00" {
            return nil
        }
        clock = time.clock
        self.offset = offset
    }

    /// Reads back what `description` wrote.
    package init?(manifest text: String) {
        guard text.utf8.count >= 19 else { return nil }
        let clock = String(text.prefix(19))
        guard CaptureTime(exifDate: clock, offset: "") != nil else { return nil }
        self.clock = clock
        let rest = String(text.dropFirst(19))
        offset = rest.isEmpty ? nil : rest
    }

    /// "+02:00" (or "+0200", "Z") at the start of `text`, as `+HH:MM`.
    package static func offset(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "Z") { return "Z" }
        guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }.prefix(4)
        guard digits.count == 4, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let d = Array(digits)
        let hours = Int(d[0] - 48) * 10 + Int(d[1] - 48)
        let minutes = Int(d[2] - 48) * 10 + Int(d[3] - 48)
        guard hours <= 14, minutes < 60 else { return nil }
        return String(format: "%@%02d:%02d", sign == UInt8(ascii: "+") ? "+" : "-", hours, minutes)
    }
}

/// `--since` / `--until`: the capture times a run keeps, compared as clock
/// readings (`CaptureTime.clock`: the time where the photo was taken, its
/// offset set aside), both ends included. A photo with no capture time is
/// left out when either is given.
package struct DateRange: Sendable, Equatable {
    /// `YYYY-MM-DDTHH:MM:SS`, or nil for no bound.
    package var since: String?
    package var until: String?

    package var isEmpty: Bool { since == nil && until == nil }

    package func admits(_ taken: CaptureTime?) -> Bool {
        if isEmpty { return true }
        guard let clock = taken?.clock else { return false }
        if let since, clock < since { return false }
        if let until, clock > until { return false }
        return true
    }

    /// `2024-05-01`, `2024-05-01T08:30` or `2024-05-01T08:30:00` (also with a
    /// space for the `T`) as a clock reading; a date alone is its first
    /// second for `--since`, its last for `--until`.
    package static func bound(_ text: String, end: Bool) -> String? {
        let t = text.replacingOccurrences(of: " ", with: "T")
        let filled: String
        switch t.utf8.count {
        case 10: filled = t + (end ? "T23:59:59" : "T00:00:00")
        case 16: filled = t + (end ? ":59" : ":00")
        case 19: filled = t
        default: return nil
        }
        guard t.dropFirst(4).first == "-", t.dropFirst(7).first == "-" else { return nil }
        return CaptureTime(exifDate: filled, offset: "")?.clock
    }

    package init(since: String? = nil, until: String? = nil) {
        (self.since, self.until) = (since, until)
    }
}
