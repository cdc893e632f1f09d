/// The report's sections for faces that have no crop: those a person
/// rejected, near-duplicates of a kept face and faces below the quality
/// floor (`--min-face-quality`, `--max-yaw`), each with the reason. A
/// dataset without them shows neither section (its report is as before).
import FaceCropCore
import FaceCropInputs
import FaceCropOutput

package struct LeftOut {
    private var rejected = ShownList<String>()
    private var duplicates = ShownList<String>()
    private var lowQuality = ShownList<String>()

    package mutating func add(_ face: FaceRecord, of source: String) {
        let box = "\(face.box.x),\(face.box.y),\(face.box.width),\(face.box.height)"
        let cells = "<td class=\"path\">\(Report.escape(source))</td><td class=\"n\">\(face.index)</td><td><code>\(box)</code></td>"
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

    package var html: String {
        section("rejected", "Rejected faces", rejected) + section("duplicates", "Near-duplicate faces", duplicates)
            + section("low-quality", "Faces below the quality floor", lowQuality)
    }

    private func section(_ id: String, _ title: String, _ rows: ShownList<String>) -> String {
        guard rows.count > 0 else { return "" }
        return "<section id=\"\(id)\">\n<h2>\(title) (\(rows.count))</h2>\n<table>\n"
            + "<tr><th>Photo</th><th>Face</th><th>Box (x,y,w,h)</th><th>Reason</th></tr>\n" + rows.shown.joined() + "</table>\n"
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

    package init(_ records: StateRecords) {
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
                    if face.status == .ok { crops += 1 } else { leftOut.add(face, of: PhotoFinder.join(record.label, record.source)) }
                }
            }
        }
    }
}
