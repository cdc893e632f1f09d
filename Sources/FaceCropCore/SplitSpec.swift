import Foundation

/// `--split train=80,val=10,test=10`: named parts with integer weights.
///
/// A photo's split is chosen from its SHA-256 alone (its content), so reruns,
/// `--jobs`, shards, `merge` and moves of the library give the same split for
/// the same photo; every face of a photo is in its photo's split.
public struct SplitSpec: Sendable, Equatable, CustomStringConvertible {
    public struct Part: Sendable, Equatable {
        public var name: String
        public var weight: Int
    }

    public var parts: [Part]
    public var total: Int { parts.reduce(0) { $0 + $1.weight } }

    /// Parses `name=weight,...`; nil-free: a bad spec is a usage error's text.
    public static func parse(_ text: String) -> Result<SplitSpec, SplitSpecError> {
        var parts: [Part] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { return .failure(.init("'\(item)' is not name=weight")) }
            let name = String(pair[0]).trimmingSpaces
            guard !name.isEmpty, name.utf8.allSatisfy(isNameByte), name.utf8.first != UInt8(ascii: "-") else {
                return .failure(.init("'\(name)' is not a split name (letters, digits, '_' and '-', not first)"))
            }
            guard let weight = Int(String(pair[1]).trimmingSpaces), weight > 0 else {
                return .failure(.init("the weight of '\(name)' must be a whole number above 0, not '\(pair[1])'"))
            }
            guard !parts.contains(where: { $0.name == name }) else {
                return .failure(.init("'\(name)' is named twice"))
            }
            parts.append(Part(name: name, weight: weight))
        }
        guard parts.count >= 1, parts.reduce(0, { $0 + $1.weight }) <= 1_000_000 else {
            return .failure(.init("the weights add up to more than 1000000"))
        }
        return .success(SplitSpec(parts: parts))
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// As given, normalised: `train=80,val=10,test=10`.
    public var description: String { parts.map { "\($0.name)=\($0.weight)" }.joined(separator: ",") }

    /// The split of a photo whose SHA-256 is `sha256` (hex): its first 64
    /// bits, read as a fraction of 2^64, scaled to the weights' total, fall
    /// in one part's share (parts in the order given).
    public func split(forSHA256 sha256: String) -> String {
        let prefix = sha256.prefix(16)
        let value = UInt64(prefix, radix: 16) ?? 0
        let slot = Int(value.multipliedFullWidth(by: UInt64(total)).high)
        var end = 0
        for part in parts {
            end += part.weight
            if slot < end { return part.name }
        }
        return parts[parts.count - 1].name
    }

}

public struct SplitSpecError: Error, Sendable, Equatable {
    public var reason: String
    package init(_ reason: String) { self.reason = reason }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
