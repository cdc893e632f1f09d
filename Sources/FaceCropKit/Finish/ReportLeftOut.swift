/// The report's sections for faces that have no crop: those a person
/// rejected and near-duplicates of a kept face, each with the reason. A
/// dataset without them shows neither section (its report is as before).
struct LeftOut {
    private var rejected: [String] = []
    private var duplicates: [String] = []

    mutating func add(_ face: FaceRecord, of source: String) {
        let box = "\(face.box.x),\(face.box.y),\(face.box.width),\(face.box.height)"
        let cells = "<td class=\"path\">\(Report.escape(source))</td><td class=\"n\">\(face.index)</td><td><code>\(box)</code></td>"
        switch face.status {
        case .ok:
            return
        case .rejected:
            rejected.append("<tr class=\"rejected\">\(cells)<td class=\"reason\">rejected in the rejections file</td></tr>\n")
        case .duplicate:
            let kept = face.duplicateOf.map {
                "<a href=\"\(Report.escape(Report.urlPath($0)))\" class=\"path\">\(Report.escape($0))</a>"
            } ?? "another face"
            duplicates.append(
                "<tr class=\"duplicate\">\(cells)<td class=\"reason\">near-duplicate of \(kept) (kept: sharper, or as sharp and larger, or first)</td></tr>\n")
        }
    }

    var html: String {
        section("rejected", "Rejected faces", rejected) + section("duplicates", "Near-duplicate faces", duplicates)
    }

    private func section(_ id: String, _ title: String, _ rows: [String]) -> String {
        guard !rows.isEmpty else { return "" }
        return "<section id=\"\(id)\">\n<h2>\(title) (\(rows.count))</h2>\n<table>\n"
            + "<tr><th>Photo</th><th>Face</th><th>Box (x,y,w,h)</th><th>Reason</th></tr>\n" + rows.joined() + "</table>\n</section>\n"
    }
}
