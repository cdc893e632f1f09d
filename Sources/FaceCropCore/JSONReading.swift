import Foundation

/// Reading JSON that facecrop or a tool it runs wrote: the one place that
/// parses it (Foundation's parser, its types: String, NSNumber, arrays,
/// dictionaries).
package enum JSONReading {
    /// `data` as one JSON object, or nil when it is not one.
    package static func object(_ data: Data) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// The file at `path` as one JSON object, or nil when it cannot be read or is not one.
    package static func object(atPath path: String) -> [String: Any]? {
        FileManager.default.contents(atPath: path).flatMap(object)
    }

    /// `data` as any JSON value; the parser's own words on failure.
    package static func value(_ data: Data) throws(JSONReadingError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: data)
        } catch {
            throw JSONReadingError(reason: (error as NSError).localizedDescription)
        }
    }
}

package struct JSONReadingError: Error {
    package var reason: String
}
