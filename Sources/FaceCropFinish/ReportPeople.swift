import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropCurate
import FaceCropPeople

/// report-people.html, the report's People page: one row per person with
/// thumbnails of their faces, then the faces of no one. On the page a
/// person is named, a face is ticked "not this person", people are merged
/// (by giving them one name) and an unassigned face is put into a person;
/// "Save people.txt" downloads the people file, as the crops page saves
/// rejections.txt, with no server.
///
/// The page embeds the people file as the run used it (its lines verbatim)
/// and where each statement's name lies on its line (`PeopleFile.nameSpans`).
/// The saved file is those lines in their order, comments and unknown lines
/// kept, with a renamed person's name rewritten where it stands, followed by
/// one new line per change: `NAME = FACE` for a person known only by a
/// grouping's id, `not NAME: FACE` per tick, `NAME: FACE` per unassigned face
/// given a name. Changes live in localStorage as the crops page's ticks do.
package enum ReportPeople {
    package static let fileName = "report-people.html"
    /// Faces shown per person and unassigned; `facecrop people --json` lists them all.
    package static let shownFaces = 60
    package static let shownUnassigned = 300

    /// Writes the page when the dataset has people (a run with `--people`),
    /// else removes one an earlier run left. Returns whether it was written,
    /// and the problems met.
    package static func write(_ run: FinishedRun) -> (written: Bool, failures: [String]) {
        // stats.json counts people only for a grouped dataset: any other
        // skips reading its manifest again.
        guard run.stats["people"] != nil else {
            unlink(run.output + "/" + fileName)
            return (false, [])
        }
        let listing: PeopleListing
        do throws(FaceCropError) {
            listing = try PeopleListing.load(dataset: run.output)
        } catch {
            return (false, ["report: cannot read the people of '\(run.output)': \(error.reason)"])
        }
        guard listing.grouped else {
            unlink(run.output + "/" + fileName)
            return (false, [])
        }
        let html = page(listing, file: run.people, output: run.output)
        do throws(WriteFailure) {
            try AtomicFile.write(Array(html.utf8), to: run.output + "/" + fileName, temporaries: run.temporaries)
            return (true, [])
        } catch {
            return (false, ["report: cannot write '\(fileName)': \(error.reason)"])
        }
    }

    package static func page(_ listing: PeopleListing, file: PeopleFile?, output: String) -> String {
        let faces = listing.people.reduce(0) { $0 + $1.faces.count }
        var html = Report.documentHead(title: "facecrop report: \(listing.people.count) people", style: [Report.style, style])
        html += """
            <header><h1>facecrop report: people</h1><p>dataset <span class="path">\(Report.escape(output))</span> · \
            \(listing.people.count) people, \(faces) faces · \(listing.unassigned.count) face\(listing.unassigned.count == 1 ? "" : "s") of no one</p></header>
            <main>
            <p><a href="\(Report.fileName)">Summary and crops</a></p>

            """
        html += bar(file)
        html += "<section id=\"people\">\n<h2>People (\(listing.people.count))</h2>\n"
        if listing.people.isEmpty { html += "<p class=\"none\">No people yet.</p>\n" }
        let named = namedFaces(file)
        for (index, person) in listing.people.enumerated() {
            html += row(person, number: index + 1, editable: file != nil, named: named)
        }
        html += "</section>\n"
        html += unassigned(listing, editable: file != nil)
        html += "<datalist id=\"people-names\">"
        for person in listing.people where person.named { html += "<option value=\"\(Report.escape(person.label))\">" }
        html += "</datalist>\n</main>\n" + script(file) + "</body>\n</html>\n"
        return html
    }

    package static let style = """
        section.person{background:#fff;border:1px solid #d8d8dc;border-radius:4px;padding:8px 10px;margin-bottom:12px}
        section.person h3{font-size:15px;margin:0 0 6px}
        section.person h3 small{font-weight:400;color:#666}
        section.person h3 .was{font-weight:400;color:#b00020;font-size:12px}
        .tools{font-size:12px;margin-bottom:6px}
        .tools input.name{font:inherit;width:14em}
        .tools button{font:inherit;padding:1px 8px}
        .faces{display:flex;flex-wrap:wrap;gap:6px}
        figure.face{margin:0;width:96px;font-size:11px;color:#444}
        figure.face img{display:block;width:96px;height:96px;object-fit:cover;background:#ddd;border:2px solid transparent;border-radius:3px}
        figure.face.rep img{border-color:#1d6fd6}
        figure.face:has(input.not:checked) img{border-color:#b00020;opacity:.55}
        figure.face label{display:block;cursor:pointer}
        figure.face .video{display:block;color:#1d6fd6}
        figure.face input.who{font:inherit;width:90px}
        figure.face input.who.bad,.tools input.name.bad{outline:2px solid #b00020}
        p.more{font-size:12px;color:#666;margin:4px 0 0}
        #curate-people{position:sticky;top:0;z-index:1;background:#f5f5f7;padding:6px 0;margin-bottom:8px;border-bottom:1px solid #d8d8dc}
        #curate-people button{font:inherit;padding:2px 10px}
        #curate-people p{margin:4px 0 0;font-size:12px;color:#444}
        #people-message{color:#b00020}
        """

    private static func bar(_ file: PeopleFile?) -> String {
        guard let file else {
            return "<p class=\"none\">Nothing to edit: the people file could not be read.</p>\n"
        }
        let key = String(Array(file.text.utf8).withUnsafeBytes { Vips.sha256($0) }.prefix(16))
        let count = file.statements.count
        return """
            <div id="curate-people" data-key="\(key)"><button type="button" id="merge-people">Merge ticked people</button> \
            <button type="button" id="save-people">Save people.txt</button> <span id="changes">no changes</span> \
            <span id="people-message"></span>
            <p>Name a person (type the name, then Name), tick faces that are not that person, tick two or more \
            people's "merge" boxes and merge them, or give a face of no one a name; then save: the browser downloads \
            <code>\(PeopleFile.defaultName)</code>, the \(count) statement\(count == 1 ? "" : "s") of the people file this \
            run used with every change made here. Put it in place of that file (<code>\(PeopleFile.defaultName)</code> in the \
            dataset, or the one <code>--people-file</code> named) and run facecrop again: names and corrections hold on \
            every later run, also into a fresh folder.</p></div>

            """
    }

    /// Faces a statement of the file names: not chosen as the face that
    /// names a person known only by an id (it may belong to another group).
    private static func namedFaces(_ file: PeopleFile?) -> [String: [PixelRect]] {
        var named: [String: [PixelRect]] = [:]
        for statement in file?.statements ?? [] { named[statement.face.sha256, default: []].append(statement.face.box) }
        return named
    }

    private static func row(_ person: PeopleListing.Person, number: Int, editable: Bool, named: [String: [PixelRect]]) -> String {
        let label = Report.escape(person.label)
        // The face a new name is given through: the representative, unless
        // a statement already speaks of it.
        let free = person.faces.filter { face in
            !(named[face.handle.sha256] ?? []).contains { $0.iou(face.handle.box) >= Rejection.minIoU }
        }
        let anchor = free.contains(person.representative) ? person.representative : free.first ?? person.representative
        var html = """
            <section class="person" id="person-row-\(number)" data-original="\(label)" data-anchor="\(Report.escape(anchor.handle.description))" \
            data-anchor-note="\(Report.escape(oneLine(anchor.note)))">
            <h3><span class="label">\(label)</span> <span class="was"></span> <small>\(person.faces.count) face\(person.faces.count == 1 ? "" : "s") · \
            \(person.photos) photo\(person.photos == 1 ? "" : "s")\(person.named ? "" : " · no name yet")</small></h3>

            """
        if editable {
            html += """
                <div class="tools"><input type="text" class="name" placeholder="name" aria-label="name of \(label)"> \
                <button type="button" class="rename">Name</button> \
                <label><input type="checkbox" class="merge"> merge</label></div>

                """
        }
        html += "<div class=\"faces\">\n"
        for face in person.faces.prefix(shownFaces) {
            let tick = editable ? "<label><input type=\"checkbox\" class=\"not\"> not this person</label>" : ""
            html += figure(face, rep: face == person.representative, extra: tick)
        }
        html += "</div>\n"
        if person.faces.count > shownFaces {
            html += "<p class=\"more\">and \(person.faces.count - shownFaces) more faces (<code>facecrop people --json</code> lists them all)</p>\n"
        }
        return html + "</section>\n"
    }

    private static func unassigned(_ listing: PeopleListing, editable: Bool) -> String {
        var html = "<section id=\"unassigned\">\n<h2>Faces of no one (\(listing.unassigned.count))</h2>\n"
        guard !listing.unassigned.isEmpty else { return html + "<p class=\"none\">None.</p>\n</section>\n" }
        html += "<div class=\"faces\">\n"
        for face in listing.unassigned.prefix(shownUnassigned) {
            let who = editable
                ? "<input type=\"text\" class=\"who\" list=\"people-names\" placeholder=\"who?\" aria-label=\"who is face #\(face.number)\">" : ""
            html += figure(face, rep: false, extra: who)
        }
        html += "</div>\n"
        if listing.unassigned.count > shownUnassigned {
            html += "<p class=\"more\">and \(listing.unassigned.count - shownUnassigned) more</p>\n"
        }
        return html + "</section>\n"
    }

    /// A face's picture; a video frame's is marked, with its time.
    private static func figure(_ face: PeopleListing.Face, rep: Bool, extra: String) -> String {
        let href = Report.escape(Report.urlPath(face.crop))
        let time = face.time.map { Report.videoTime($0) }
        let mark = time.map { "<span class=\"video\">▶ \($0)</span>" } ?? ""
        return """
            <figure class="face\(rep ? " rep" : "")\(time == nil ? "" : " video")" id="face-\(face.number)" data-number="\(face.number)" \
            data-handle="\(Report.escape(face.handle.description))" data-note="\(Report.escape(oneLine(face.note)))" \
            title="#\(face.number) \(Report.escape(face.photo)), face \(face.face)\(time.map { ", video frame at \($0)" } ?? "")">\
            <a href="\(href)"><img src="\(href)" \
            loading="lazy" decoding="async" width="96" height="96" alt="face \(face.face) of \(Report.escape(face.photo))"></a>\
            \(mark)\(extra)</figure>

            """
    }

    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }

    /// The embedded file, its names' places, the name rule and the script.
    private static func script(_ file: PeopleFile?) -> String {
        guard let file else { return "" }
        var text = ""
        JSON.quote(file.text, into: &text)
        let spans = JSON.array(
            file.nameSpans.map { .array([.int($0.index), .string($0.name), .string($0.prefix), .string($0.suffix)]) })
        // Inside <script> only "</script" could end it early: no "<" at all.
        func safe(_ json: String) -> String { json.replacingOccurrences(of: "<", with: "\\u003c") }
        return """
            <script type="application/json" id="people-file">\(safe(text))</script>
            <script type="application/json" id="people-spans">\(safe(spans.serialized()))</script>
            <script>
            \(code)</script>

            """
    }

    /// The page's script. A name is checked and written as `PeopleName`
    /// checks and writes it (its script is made from the same constants):
    /// the next run reads back any name the page accepts.
    private static let code = """
        (() => {
        \(PeopleName.script)
          const file = JSON.parse(document.getElementById("people-file").textContent);
          const spans = JSON.parse(document.getElementById("people-spans").textContent);
          const bar = document.getElementById("curate-people");
          const folder = location.pathname.replace(/[^/]*$/, "");
          const key = "facecrop-people " + folder + " " + bar.dataset.key;
          const rows = [...document.querySelectorAll("section.person")];
          const isID = (label) => /^person-[0-9]+$/.test(label);
          const valid = (name) => nameProblem(name) === "";
          let store = null, state = { labels: {}, not: {}, who: {} };
          try {
            store = window.localStorage;
            const saved = JSON.parse(store.getItem(key) || "null");
            if (saved) state = saved;
          } catch (e) { store = null; }
          const message = document.getElementById("people-message");
          const current = (row) => state.labels[row.dataset.original] || row.dataset.original;
          const keep = () => { if (store) { try { store.setItem(key, JSON.stringify(state)); } catch (e) {} } };
          const show = () => {
            for (const row of rows) {
              const label = current(row);
              row.querySelector(".label").textContent = label;
              row.querySelector(".was").textContent = label === row.dataset.original ? "" : "(was " + row.dataset.original + ")";
            }
            const n = Object.keys(state.labels).length + Object.keys(state.not).length + Object.keys(state.who).length;
            document.getElementById("changes").textContent = n === 0 ? "no changes" : n + (n === 1 ? " change" : " changes");
            keep();
          };
          // Every person now called `from` is called `to` (a merge is two people given one name).
          const rename = (from, to) => {
            for (const row of rows) {
              if (current(row) !== from) continue;
              if (to === row.dataset.original) delete state.labels[row.dataset.original];
              else state.labels[row.dataset.original] = to;
            }
          };
          for (const row of rows) {
            const input = row.querySelector("input.name");
            if (!input) continue;
            row.querySelector("button.rename").addEventListener("click", () => {
              const name = input.value.trim();
              input.classList.toggle("bad", !valid(name));
              if (!valid(name)) { message.textContent = nameProblem(name); return; }
              message.textContent = "";
              rename(current(row), name);
              input.value = "";
              show();
            });
            for (const figure of row.querySelectorAll("figure.face")) {
              const box = figure.querySelector("input.not");
              box.checked = figure.dataset.handle in state.not;
              box.addEventListener("change", () => {
                if (box.checked) state.not[figure.dataset.handle] = [row.dataset.original, Number(figure.dataset.number), figure.dataset.note];
                else delete state.not[figure.dataset.handle];
                show();
              });
            }
          }
          for (const figure of document.querySelectorAll("#unassigned figure.face")) {
            const input = figure.querySelector("input.who");
            if (!input) continue;
            if (figure.dataset.handle in state.who) input.value = state.who[figure.dataset.handle][0];
            input.addEventListener("change", () => {
              const name = input.value.trim();
              input.classList.toggle("bad", name !== "" && !valid(name));
              if (name === "" || !valid(name)) delete state.who[figure.dataset.handle];
              else state.who[figure.dataset.handle] = [name, Number(figure.dataset.number), figure.dataset.note];
              show();
            });
          }
          document.getElementById("merge-people").addEventListener("click", () => {
            const ticked = rows.filter((row) => row.querySelector("input.merge").checked);
            if (ticked.length < 2) { message.textContent = "Tick the merge box of two or more people first."; return; }
            message.textContent = "";
            const target = current(ticked.find((row) => !isID(current(row))) || ticked[0]);
            for (const row of ticked) {
              rename(current(row), target);
              row.querySelector("input.merge").checked = false;
            }
            show();
          });
          document.getElementById("save-people").addEventListener("click", () => {
            const lines = file.split("\\n");
            lines.pop();
            const renamed = {};
            for (const row of rows) if (current(row) !== row.dataset.original) renamed[row.dataset.original] = current(row);
            // A name rewritten where it stands: the rest of its line, comment included, stays.
            for (const [index, name, prefix, suffix] of spans) {
              if (name in renamed) lines[index] = prefix + written(renamed[name]) + suffix;
            }
            const added = [];
            const note = (text) => text ? "  # " + text : "";
            for (const row of rows) {
              if (isID(row.dataset.original) && row.dataset.original in renamed) {
                added.push(written(current(row)) + " = " + row.dataset.anchor + note(row.dataset.anchorNote));
              }
            }
            const byNumber = (a, b) => a[1][1] - b[1][1];
            for (const [handle, [original, , text]] of Object.entries(state.not).sort(byNumber)) {
              added.push("\(PeopleFile.notWord) " + written(renamed[original] || original) + ": " + handle + note(text));
            }
            for (const [handle, [name, , text]] of Object.entries(state.who).sort(byNumber)) {
              added.push(written(name) + ": " + handle + note(text));
            }
            const text = lines.concat(added).map((line) => line + "\\n").join("");
            const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
            const link = document.createElement("a");
            link.href = url;
            link.download = "\(PeopleFile.defaultName)";
            document.body.append(link);
            link.click();
            link.remove();
            setTimeout(() => URL.revokeObjectURL(url), 60000);
          });
          show();
        })();

        """
}
