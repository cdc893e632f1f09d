import Foundation
import FaceCropCore
import FaceCropDetect
import FaceCropInputs

/// report.html: one static page (inline CSS and script, nothing fetched from
/// the network) to look at a dataset: the run's summary and settings, every
/// photo that failed and why, the photos without a face, and the crops, each
/// with a tick box to reject it (`ReportTicks`). The lists of photos show
/// their first `ReportLists.limit` entries and how many more there are (the
/// manifest has them all).
///
/// The crops are shown `pageSize` to a page (report.html, report-2.html, ...)
/// as `loading="lazy"` images of the crop files themselves: crops are
/// already small, so a second set of thumbnails would only double the files,
/// and a page of 500 lazily loaded images stays quick in a browser even when
/// the dataset holds 100,000 crops. Each page is built and written on its own.
package enum Report {
    package static let fileName = "report.html"
    package static let defaultPageSize = 500
    /// Side of a crop's thumbnail on the page, in CSS pixels.
    package static let thumbnailSide = 128

    package static func pageName(_ page: Int) -> String {
        page == 1 ? fileName : "report-\(page).html"
    }

    /// One crop as the page shows it: a face of a record, numbered in manifest order.
    package struct Crop {
        package var number: Int
        package var source: String
        package var face: FaceRecord
        /// The photo's SHA-256, for the crop's rejection entry.
        package var sha256: String?
        package var width: Int?
        package var height: Int?
    }

    /// Writes every page and removes pages a larger dataset left behind.
    /// Returns the problems met. Two passes over the records, one at a
    /// time: the first counts and keeps the start of each list
    /// (`ReportLists`), the second writes the crops a page at a time, so the
    /// report holds at most one page of crops whatever the dataset's size.
    package static func write(_ run: FinishedRun, sheets: [String], peoplePage: Bool = false, pageSize: Int = defaultPageSize) -> [String] {
        let lists = ReportLists(run.records, thumbnails: LeftOutThumbnails(inputs: run.inputs, output: run.output))
        let pages = max(1, (lists.crops + pageSize - 1) / pageSize)
        var failures: [String] = []
        var page = 1
        var slice: [Crop] = []
        let writePage = { (page: Int, slice: [Crop]) in
            if let failure = write(run, page: page, of: pages, crops: slice[...], lists: lists, sheets: sheets, peoplePage: peoplePage) {
                failures.append(failure)
            }
        }
        var number = 0
        for record in run.records where record.status == .ok {
            let shown = PhotoFinder.join(record.label, record.source)
            for face in record.faces where face.status == .ok {
                number += 1
                slice.append(
                    Crop(
                        number: number, source: shown, face: face, sha256: record.sha256, width: record.width,
                        height: record.height))
                if slice.count == pageSize {
                    writePage(page, slice)
                    page += 1
                    slice = []
                }
            }
        }
        if page <= pages { writePage(page, slice) }
        var stale = pages + 1
        while unlink(run.output + "/" + pageName(stale)) == 0 { stale += 1 }
        return failures
    }

    /// One page: the lists on the first, then its crops.
    private static func write(
        _ run: FinishedRun, page: Int, of pages: Int, crops: ArraySlice<Crop>, lists: ReportLists, sheets: [String],
        peoplePage: Bool
    ) -> String? {
        var html = head(run, page: page, pages: pages)
        if page == 1 {
            html += summary(run, sheets: sheets, crops: lists.crops, peoplePage: peoplePage)
            html += failed(lists.errors)
            html += withoutFace(lists.noFace)
            html += lists.leftOut.html
        }
        html += grid(crops, run, total: lists.crops, page: page, pages: pages)
        html += "</main>\n" + (crops.isEmpty ? "" : ReportTicks.script(run) + ReportOrder.script) + "</body>\n</html>\n"
        do throws(WriteFailure) {
            try AtomicFile.write(Array(html.utf8), to: run.output + "/" + pageName(page), temporaries: run.temporaries)
            return nil
        } catch {
            return "report: cannot write '\(pageName(page))': \(error.reason)"
        }
    }

    package static let style = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;background:#f5f5f7}
        header{background:#1d1d1f;color:#f5f5f7;padding:12px 24px}
        header h1{font-size:20px;margin:0}
        header p{margin:2px 0 0;color:#b0b0b5}
        main{padding:8px 24px 32px}
        h2{font-size:16px;margin:24px 0 8px}
        table{border-collapse:collapse;background:#fff}
        th,td{padding:4px 10px;border:1px solid #d8d8dc;text-align:left;vertical-align:top}
        th{background:#ececf0;font-weight:600}
        td.n{text-align:right;font-variant-numeric:tabular-nums}
        .cards{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
        tr.error td.reason{color:#b00020}
        td.thumb{padding:2px;width:64px}
        td.thumb a{display:block;position:relative;width:64px;height:64px;overflow:hidden;background:#ddd}
        td.thumb img{position:absolute;max-width:none}
        ul.noface{columns:3 260px;margin:0;padding-left:20px}
        code,.path{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;word-break:break-all}
        .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(148px,1fr));gap:10px}
        figure.crop{margin:0;background:#fff;border:1px solid #d8d8dc;border-radius:4px;padding:6px}
        figure.crop img{display:block;width:100%;height:auto;aspect-ratio:1;object-fit:cover;background:#ddd}
        figcaption{font-size:11px;color:#444;margin-top:4px;overflow-wrap:anywhere}
        figcaption b{color:#1d1d1f}
        figcaption .name{font-weight:600;color:#1d1d1f}
        figcaption .time{color:#1d6fd6}
        nav.pages{margin:12px 0;display:flex;flex-wrap:wrap;gap:4px}
        nav.pages a,nav.pages span{padding:2px 8px;border:1px solid #d8d8dc;border-radius:3px;background:#fff;text-decoration:none}
        nav.pages span{background:#1d1d1f;color:#fff}
        nav.pages i{padding:2px 4px}
        .none{color:#666}
        """

    /// The start of both pages (this report and the People page), through
    /// `<body>`: the charset, viewport, generator, title and style sheets.
    package static func documentHead(title: String, style: [String]) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="facecrop \(escape(Options.version))">
        <title>\(escape(title))</title>
        <style>
        \(style.joined(separator: "\n"))
        </style>
        </head>
        <body>

        """
    }

    private static func head(_ run: FinishedRun, page: Int, pages: Int) -> String {
        let photos = run.stats["photos"]?.intValue ?? 0
        let faces = run.stats["faces"]?.intValue ?? 0
        var title = "facecrop report: \(photos) photos, \(faces) faces"
        if pages > 1 { title += " (page \(page) of \(pages))" }
        var html = documentHead(title: title, style: [style, ReportTicks.style, ReportOrder.style])
        html += """
            <header><h1>facecrop report</h1><p>dataset <span class="path">\(escape(run.output))</span> · \
            facecrop \(escape(run.stats["version"]?.text ?? Options.version)) · \
            \(photos) photos, \(faces) faces\(pages > 1 ? " · page \(page) of \(pages)" : "")</p></header>
            <main>

            """
        if page > 1 {
            html += "<p><a href=\"\(fileName)\">Summary, failed photos and photos without a face</a></p>\n"
        }
        return html
    }

    private static func summary(_ run: FinishedRun, sheets: [String], crops: Int, peoplePage: Bool) -> String {
        let stats = run.stats
        let timing = stats["run"]
        func row(_ label: String, _ key: String, _ value: JSON?) -> String {
            "<tr><th>\(escape(label))</th><td class=\"n\" data-stat=\"\(key)\">\(escape(value?.text ?? "-"))</td></tr>\n"
        }
        var html = "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n<table class=\"summary\">\n"
        html += row("Photos", "photos", stats["photos"])
        html += row("Faces (crops)", "faces", stats["faces"])
        html += row("Photos with faces", "ok", stats["counts"]?["ok"])
        html += row("Photos without a face", "no_face", stats["counts"]?["no_face"])
        if let noPerson = stats["counts"]?["no_person"] {
            html += row("Photos without a person (--person-only)", "no_person", noPerson)
        }
        html += row("Photos that failed", "error", stats["counts"]?["error"])
        if let unreadable = stats["unreadable"] {
            html += row("Photos that failed to read, kept as before", "unreadable", unreadable)
        }
        if let missing = stats["missing"] { html += row("Photos not found, kept (--no-prune)", "missing", missing) }
        if let rejected = stats["rejected"] { html += row("Faces rejected (no crop)", "rejected", rejected) }
        if let duplicate = stats["duplicate"] { html += row("Near-duplicate faces (no crop)", "duplicate", duplicate) }
        if let tagged = stats["tagged_faces"] {
            html += row("Faces tagged in XMP", "tagged_faces", tagged)
            html += row("Tagged faces the detector found", "tagged_faces_found", stats["tagged_faces_found"])
            html += row("Detector recall on tagged faces (%)", "tagged_faces_recall", stats["tagged_faces_recall"])
        }
        if case .object(let splits)? = stats["splits"] {
            for (name, count) in splits { html += row("Crops in split \(name)", "split-\(name)", count) }
        }
        html += row("Complete", "complete", stats["complete"])
        html += row("Time (s)", "elapsed_s", timing?["elapsed_s"])
        html += row("Speed (photos/s)", "photos_per_s", timing?["photos_per_s"])
        html += row("Jobs", "jobs", timing?["jobs"])
        html += row("Processed this run", "processed", timing?["processed"])
        html += row("Unchanged since last run", "reused", timing?["reused"])
        html += row("Old crops removed", "removed_crops", timing?["removed_crops"])
        html += "</table>\n<table class=\"settings\">\n<tr><th colspan=\"2\">Settings</th></tr>\n"
        if case .object(let members)? = stats["settings"] {
            for (key, value) in members {
                html += "<tr><th>\(escape(key))</th><td data-setting=\"\(escape(key))\">\(escape(value.text))</td></tr>\n"
            }
        }
        if let hash = stats["settings_hash"]?.text {
            html += "<tr><th>settings_hash</th><td><code>\(escape(String(hash.prefix(16))))…</code></td></tr>\n"
        }
        html += "</table>\n</div>\n"
        html += "<p>Files: <a href=\"manifest.jsonl\">manifest.jsonl</a> · <a href=\"stats.json\">stats.json</a>"
        for sheet in sheets {
            html += " · <a href=\"\(escape(sheet))\" class=\"sheet\">\(escape(sheet))</a>"
        }
        if peoplePage { html += " · <a href=\"\(ReportPeople.fileName)\" id=\"people-link\">People</a>" }
        html += "</p>\n</section>\n"
        return html
    }

    private static func failed(_ errors: ShownList<(String, String)>) -> String {
        var html = "<section id=\"failed\">\n<h2>Photos that failed (\(errors.count))</h2>\n"
        guard errors.count > 0 else { return html + "<p class=\"none\">None.</p>\n</section>\n" }
        html += "<table class=\"errors\">\n<tr><th>photo</th><th>why</th></tr>\n"
        for (source, reason) in errors.shown {
            html += "<tr class=\"error\"><td class=\"source path\">\(escape(source))</td><td class=\"reason\">\(escape(reason))</td></tr>\n"
        }
        return html + "</table>\n" + errors.moreHTML + "</section>\n"
    }

    private static func withoutFace(_ photos: ShownList<String>) -> String {
        var html = "<section id=\"noface\">\n<h2>Photos without a face (\(photos.count))</h2>\n"
        guard photos.count > 0 else { return html + "<p class=\"none\">None.</p>\n</section>\n" }
        html += "<ul class=\"noface\">\n"
        for source in photos.shown { html += "<li class=\"noface path\">\(escape(source))</li>\n" }
        return html + "</ul>\n" + photos.moreHTML + "</section>\n"
    }

    private static func grid(_ crops: ArraySlice<Crop>, _ run: FinishedRun, total: Int, page: Int, pages: Int) -> String {
        var html = "<section id=\"crops\">\n<h2>Crops"
        if let first = crops.first?.number, let last = crops.last?.number {
            html += " \(first)–\(last) of \(total)"
        } else {
            html += " (0)"
        }
        html += "</h2>\n"
        let navigation = pages > 1 ? pager(page: page, pages: pages) : ""
        html += navigation
        guard !crops.isEmpty else { return html + "<p class=\"none\">No crops.</p>\n</section>\n" }
        html += ReportTicks.bar(run) + ReportOrder.control + "<div class=\"grid\">\n"
        for crop in crops {
            let face = crop.face
            let box = face.box
            let href = escape(urlPath(face.crop))
            var detail = "score \(format(face.score)) · face \(box.width)×\(box.height) px"
            if let width = crop.width, let height = crop.height { detail += " · photo \(width)×\(height)" }
            if face.padded { detail += " · padded" }
            var quality = ""
            if let measured = face.quality {
                detail += " · quality \(format(measured.score))" + (measured.reasons.isEmpty ? "" : " (\(measured.reasons.joined(separator: ", ")))")
                quality = " data-quality=\"\(measured.score)\""
            }
            let tooltip =
                "#\(crop.number) \(crop.source), face \(face.index)\n\(detail)\n\(face.crop)"
                + "\nbbox \([box.x, box.y, box.width, box.height].map(String.init).joined(separator: ", "))"
            html += """
                <figure class="crop" id="crop-\(crop.number)"\(quality) title="\(escape(tooltip))">\
                <a href="\(href)"><img src="\(href)" loading="lazy" decoding="async" width="\(thumbnailSide)" \
                height="\(thumbnailSide)" alt="face \(face.index) of \(escape(crop.source))"></a>\
                <figcaption><b>#\(crop.number)</b> <span class="path">\(escape(crop.source))</span> face \(face.index)\
                \(caption(face))<br>\(escape(detail))\(ReportTicks.box(crop, run))</figcaption></figure>

                """
        }
        return html + "</div>\n" + navigation + "</section>\n"
    }

    /// Who the face is (its person, else its tag's name) and, for a video
    /// frame, its time and track: six frames of one video are not six duplicates.
    private static func caption(_ face: FaceRecord) -> String {
        var html = ""
        if let name = face.person ?? face.tagName { html += "<br><span class=\"name\">\(escape(name))</span>" }
        if let video = face.video {
            html += "<br><span class=\"time\">▶ \(videoTime(video.time)), track \(video.track)</span>"
        }
        return html
    }

    /// A video frame's time as the pages show it: `1.233 s`, `75.500 s (1:15.500)`.
    package static func videoTime(_ seconds: Double) -> String {
        let text = String(format: "%.3f s", seconds)
        guard seconds >= 60 else { return text }
        let minutes = Int(seconds / 60)
        return text + String(format: " (%d:%06.3f)", minutes, seconds - Double(minutes * 60))
    }

    private static func pager(page: Int, pages: Int) -> String {
        var html = "<nav class=\"pages\">"
        if page > 1 { html += "<a href=\"\(pageName(page - 1))\" rel=\"prev\">‹ previous</a>" }
        for number in 1...pages {
            // Near pages, the first and the last, with gaps elided.
            if number == 1 || number == pages || abs(number - page) <= 3 {
                html += number == page ? "<span>\(number)</span>" : "<a href=\"\(pageName(number))\">\(number)</a>"
            } else if number == 2 || number == pages - 1 {
                html += "<i>…</i>"
            }
        }
        if page < pages { html += "<a href=\"\(pageName(page + 1))\" rel=\"next\">next ›</a>" }
        return html + "</nav>\n"
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    /// `text` safe inside HTML text and quoted attributes. Not `JSON.quote`:
    /// HTML needs `&`, `<`, `>` and `'` made entities and keeps control
    /// characters and backslashes as they are, which JSON must escape; the
    /// two share only the idea of replacing some scalars.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// A relative path as a URL path: each segment percent-encoded (so `#`,
    /// `?`, `%` and spaces in file names stay part of the name).
    package static func urlPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? String($0) }
            .joined(separator: "/")
    }
}
