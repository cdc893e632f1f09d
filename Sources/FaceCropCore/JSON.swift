/// A JSON value whose object keys keep their order, so that the same data
/// always serialises to the same bytes.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool { a.serialized() == b.serialized() }

    /// Compact JSON, one line. Doubles are written with the shortest digits
    /// that round-trip, which is the same on every run and machine.
    public func serialized() -> String {
        var out = ""
        write(into: &out)
        return out
    }

    /// Pretty JSON with two-space indentation.
    public func pretty() -> String {
        var out = ""
        write(into: &out, indent: 0)
        return out
    }

    private func write(into out: inout String, indent: Int? = nil) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            if !value.isFinite {
                out += "null"
            } else if value == value.rounded(), abs(value) < 1e15 {
                out += String(Int(value))
            } else {
                out += "\(value)"
            }
        case .string(let value): JSON.quote(value, into: &out)
        case .array(let values):
            out += "["
            for (i, value) in values.enumerated() {
                if i > 0 { out += indent == nil ? "," : ", " }
                value.write(into: &out, indent: nil)
            }
            out += "]"
        case .object(let members):
            guard let indent else {
                out += "{"
                for (i, (key, value)) in members.enumerated() {
                    if i > 0 { out += ", " }
                    JSON.quote(key, into: &out)
                    out += ": "
                    value.write(into: &out)
                }
                out += "}"
                return
            }
            let pad = String(repeating: "  ", count: indent + 1)
            out += "{\n"
            for (i, (key, value)) in members.enumerated() {
                out += pad
                JSON.quote(key, into: &out)
                out += ": "
                value.write(into: &out, indent: indent + 1)
                out += i + 1 < members.count ? ",\n" : "\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }

    /// `text` as a JSON string literal (RFC 8259 escapes, plus U+2028/9 for
    /// JavaScript). HTML escaping is another job: `Report.escape`.
    package static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || c.value == 0x2028 || c.value == 0x2029:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSON {
    /// The member named `key` of an object.
    package subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    package var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value == value.rounded(): Int(value)
        default: nil
        }
    }

    /// A scalar as the text a person reads (strings unquoted).
    package var text: String {
        switch self {
        case .string(let value): value
        case .bool(let value): value ? "yes" : "no"
        default: serialized()
        }
    }
}
