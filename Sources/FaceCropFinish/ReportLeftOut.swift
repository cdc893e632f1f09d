/// The report's sections for faces that have no crop: those a person
/// rejected, near-duplicates of a kept face and faces below the quality
/// floor (`--min-face-quality`, `--max-yaw`), each with the reason and a
/// thumbnail cut from its photo by the browser (`LeftOutThumbnails`). A
/// dataset without them shows neither section (its report is as before).
import Foundation
import FaceCropCore
import FaceCropInputs
import FaceCropOutput

package struct LeftOut {
    private var rejected = ShownList<String>()
    private var duplicates = ShownList<String>()
    private var lowQuality = ShownList<String>()

    /// `thumbnail`: the face's picture cell (`LeftOutThumbnails.cell`).
    package mutating func add(_ face: FaceRecord, of source: String, thumbnail: String = "<td></td>") {
        let box = "\(face.box.x),\(face.box.y),\(face.box.width),\(face.box.height)"
        let cells = thumbnail
            + "<td class=\"path\">\(Report.escape(source))</td><td class=\"n\">\(face.index)</td><td><code>\(box)</code></td>"
        switch face.status {
        case .ok, .otherPerson:
            return
        case .lowQuality:
            let quality = face.quality.map { q in
                "face_quality \(q.score)" + (q.reasons.isEmpty ? "" : ", wrong: \(q.reasons.joined(separator: ", "))") + (q.pose.map { ", yaw \($0.yaw)°" } ?? "")
            } ?? "below the quality floor"
            lowQuality.add("<tr class=\"low-quality\">\(cells)<td class=\"reason\">\(Report.escape(quality))</td></tr>\n")
        case .rejected:
            rejected.add("<tr class=\"rejected\">\(cells)<td class=\"reason\">rejected in the rejections file</td></tr>\n")
        case .duplicate:
            guard duplicates.wants else { return duplicates.add("") }
            let kept = face.duplicateOf.map {
                "<a href=\"\(Report.escape(Report.urlPath($0)))\" class=\"path\">\(Report.escape($0))</a>"
            } ?? "another face"
            duplicates.add(
                "<tr class=\"duplicate\">\(cells)<td class=\"reason\">near-duplicate of \(kept) (kept: sharper, or as sharp and larger, or first)</td></tr>\n")
        }
    }

    /// Whether `face`'s row would be shown (else only counted).
    package func wants(_ face: FaceRecord) -> Bool {
        switch face.status {
        case .lowQuality: lowQuality.wants
        case .rejected: rejected.wants
        case .duplicate: duplicates.wants
        case .ok, .otherPerson: false
        }
    }

    package var html: String {
        section("rejected", "Rejected faces", rejected) + section("duplicates", "Near-duplicate faces", duplicates)
            + section("low-quality", "Faces below the quality floor", lowQuality)
    }

    private func section(_ id: String, _ title: String, _ rows: ShownList<String>) -> String {
        guard rows.count > 0 else { return "" }
        return "<section id=\"\(id)\">\n<h2>\(title) (\(rows.count))</h2>\n<table>\n"
            + "<tr><th></th><th>Photo</th><th>Face</th><th>Box (x,y,w,h)</th><th>Reason</th></tr>\n" + rows.shown.joined() + "</table>\n"
            + rows.moreHTML + "</section>\n"
    }
}

/// A list the report shows in part: its first `ReportLists.limit` entries
/// and how many there are in all, so a report of a million photos without a
/// face holds a thousand names, not a million.
package struct ShownList<Element> {
    package init() {}

    package private(set) var shown: [Element] = []
    package private(set) var count = 0

    /// Whether the next entry is shown (else only counted).
    package var wants: Bool { shown.count < ReportLists.limit }

    package mutating func add(_ element: Element) {
        count += 1
        if wants { shown.append(element) }
    }

    /// The line after a cut list, or nothing.
    package var moreHTML: String {
        guard count > shown.count else { return "" }
        return "<p class=\"more\">… and \(count - shown.count) more, not listed here: "
            + "<a href=\"manifest.jsonl\">manifest.jsonl</a> has every one.</p>\n"
    }
}

/// What the report's first page lists, from one pass over the records: the
/// photos that failed, those without a face, the faces left out, and the
/// number of crops.
package struct ReportLists {
    /// Entries shown in each list; the rest are counted.
    package static let limit = 1000

    package var errors = ShownList<(String, String)>()
    package var noFace = ShownList<String>()
    package var leftOut = LeftOut()
    package var crops = 0

    package init(_ records: StateRecords, thumbnails: LeftOutThumbnails = LeftOutThumbnails()) {
        for record in records {
            switch record.status {
            case .error:
                errors.add((PhotoFinder.join(record.label, record.source), record.failure ?? "unknown error"))
            case .noFace:
                noFace.add(noFace.wants ? PhotoFinder.join(record.label, record.source) : "")
            case .noPerson:
                noFace.add(noFace.wants ? PhotoFinder.join(record.label, record.source) + " (no person found)" : "")
            case .ok:
                for face in record.faces {
                    if face.status == .ok {
                        crops += 1
                    } else if leftOut.wants(face) {
                        leftOut.add(face, of: PhotoFinder.join(record.label, record.source), thumbnail: thumbnails.cell(face, of: record))
                    } else {
                        leftOut.add(face, of: PhotoFinder.join(record.label, record.source))
                    }
                }
            }
        }
    }
}

/// A face without a crop, shown in the report cut from its photo by the
/// browser: the photo, linked by its path relative to the dataset, in a
/// 64 px square around the face (1.4 times its side). Only for photos a
/// browser shows (JPEG, PNG, GIF, WebP, AVIF) whose input the run knows (a
/// `merge` does not: its cells are empty); a moved dataset or photo shows
/// an empty square.
package struct LeftOutThumbnails {
    package static let side = 64
    private static let shown: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "avif"]
    private var inputs: [String: String] = [:]
    private var output = ""

    package init(inputs: [String: String] = [:], output: String = "") {
        (self.inputs, self.output) = (inputs, output)
    }

    /// The table cell of `face` of `record` (empty when it cannot be shown).
    package func cell(_ face: FaceRecord, of record: PhotoRecord) -> String {
        guard let input = inputs[record.label], let width = record.width, let height = record.height,
            Self.shown.contains((record.source as NSString).pathExtension.lowercased()), face.video == nil
        else { return "<td class=\"thumb\"></td>" }
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: input, isDirectory: &isFolder)
        let photo = isFolder.boolValue ? input + "/" + record.source : input
        let box = face.box
        let square = Double(max(box.width, box.height)) * 1.4
        let scale = Double(Self.side) / max(1, square)
        let left = (Double(box.x) + Double(box.width) / 2 - square / 2) * scale
        let top = (Double(box.y) + Double(box.height) / 2 - square / 2) * scale
        func px(_ value: Double) -> String { String(format: "%.1fpx", value) }
        let style = "width:\(px(Double(width) * scale));height:\(px(Double(height) * scale));left:\(px(-left));top:\(px(-top))"
        let href = Report.escape(Report.urlPath(Self.relative(photo, from: output)))
        return "<td class=\"thumb\"><a href=\"\(href)\"><img src=\"\(href)\" loading=\"lazy\" decoding=\"async\" alt=\"\" style=\"\(style)\"></a></td>"
    }

    /// `path` relative to the folder `base` (both made absolute).
    package static func relative(_ path: String, from base: String) -> String {
        func parts(_ path: String) -> [String] {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            return (absolute as NSString).standardizingPath.split(separator: "/").map(String.init)
        }
        let target = parts(path)
        let from = parts(base)
        var common = 0
        while common < min(target.count, from.count) && target[common] == from[common] { common += 1 }
        return (Array(repeating: "..", count: from.count - common) + target[common...]).joined(separator: "/")
    }
}
