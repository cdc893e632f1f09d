import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropCurate

/// report.html's tick boxes: a person ticks the crops that are not wanted
/// and saves the rejections file from the page, with no server (it works
/// from `file://`).
///
/// Each page embeds the rejections file as the run left it (its lines
/// verbatim); each crop's box holds, as its value, the very line `facecrop
/// reject` would add for it. "Save rejections" downloads (a Blob, named
/// rejections.txt) the embedded lines followed by the ticked crops' lines in
/// crop order: the file `facecrop reject` would have written. A crop shown
/// is never rejected by the embedded file (the run left it out otherwise), so
/// no ticked line repeats an entry.
///
/// Ticks live in the browser's localStorage where it allows it (Chromium
/// and Firefox do for `file://`), so the ticks of every page of a large
/// report are saved together. The key holds the page's folder (from its own
/// URL) and a hash of the embedded file, so the ticks end when the file they
/// were added to changes (a rerun with the saved file). Without it, a page
/// saves its own ticks. The page names no folder or file outside its header:
/// a dataset's report reads the same wherever it was made and whichever
/// `--rejections` path gave the file (shards, merge, a CI regeneration).
package enum ReportTicks {
    package static let fileName = RejectionsFile.defaultName

    package static let style = """
        label.reject{display:block;font-size:11px;margin-top:2px;cursor:pointer;color:#444}
        figure.crop:has(input.reject:checked){border-color:#b00020;background:#fdecee}
        #curate{position:sticky;top:0;z-index:1;background:#f5f5f7;padding:6px 0;margin-bottom:8px;border-bottom:1px solid #d8d8dc}
        #curate button{font:inherit;padding:2px 10px}
        #curate p{margin:4px 0 0;font-size:12px;color:#444}
        """

    /// The tick box under a crop; nil when the page offers none.
    package static func box(_ crop: Report.Crop, _ run: FinishedRun) -> String {
        guard run.rejections != nil, let sha256 = crop.sha256 else { return "" }
        let line = Rejection(sha256: sha256, face: crop.face)
            .line(note: Rejection.note(photo: crop.source, face: crop.face))
        return "<label class=\"reject\"><input type=\"checkbox\" class=\"reject\" value=\"\(Report.escape(line))\"> reject</label>"
    }

    /// The bar above a page's crops: the button, the count and how to use the file.
    package static func bar(_ run: FinishedRun) -> String {
        guard let rejections = run.rejections else {
            return "<p class=\"none\">No tick boxes: the rejections file could not be read.</p>\n"
        }
        let entries = rejections.entries.count
        let key = String(Array(rejections.text.utf8).withUnsafeBytes { Vips.sha256($0) }.prefix(16))
        return """
            <div id="curate" data-key="\(key)"><button type="button" id="save-rejections">Save rejections</button> \
            <span id="ticked">0 crops ticked</span>
            <p>Tick the crops that are not faces or not wanted, then save: the browser downloads \
            <code>\(fileName)</code>, the \(entries) entr\(entries == 1 ? "y" : "ies") of the rejections file this run used \
            (<code>\(fileName)</code> beside this page, or the one <code>--rejections</code> named) followed by one line \
            for each crop ticked on any page of this report. Put it in place of that file (or pass it with \
            <code>--rejections</code>) and run facecrop again: the ticked crops are removed, and every later run \
            leaves them out.</p></div>

            """
    }

    /// The embedded file and the script, once at the end of a page with crops.
    package static func script(_ run: FinishedRun) -> String {
        guard let rejections = run.rejections else { return "" }
        var file = ""
        JSON.quote(rejections.text, into: &file)
        // Inside <script> only "</script" could end it early: no "<" at all.
        file = file.replacingOccurrences(of: "<", with: "\\u003c")
        return "<script type=\"application/json\" id=\"rejections-file\">\(file)</script>\n<script>\n\(code)</script>\n"
    }

    /// `ticked` maps each ticked crop's line to its crop number (the save's order).
    private static let code = """
        (() => {
          const file = JSON.parse(document.getElementById("rejections-file").textContent);
          const folder = location.pathname.replace(/[^/]*$/, "");
          const key = "facecrop-ticks " + folder + " " + document.getElementById("curate").dataset.key;
          let store = null, ticked = {};
          try { store = window.localStorage; ticked = JSON.parse(store.getItem(key) || "{}"); } catch (e) { store = null; }
          const count = document.getElementById("ticked");
          const show = () => {
            const n = Object.keys(ticked).length;
            count.textContent = n + (n === 1 ? " crop ticked" : " crops ticked");
          };
          for (const box of document.querySelectorAll("input.reject")) {
            const number = Number(box.closest("figure").id.slice(5));
            box.checked = box.value in ticked;
            box.addEventListener("change", () => {
              if (box.checked) ticked[box.value] = number; else delete ticked[box.value];
              if (store) { try { store.setItem(key, JSON.stringify(ticked)); } catch (e) {} }
              show();
            });
          }
          document.getElementById("save-rejections").addEventListener("click", () => {
            const lines = Object.keys(ticked).sort((a, b) => ticked[a] - ticked[b]).map((line) => line + "\\n");
            const url = URL.createObjectURL(new Blob([file + lines.join("")], { type: "text/plain" }));
            const link = document.createElement("a");
            link.href = url;
            link.download = "\(fileName)";
            document.body.append(link);
            link.click();
            link.remove();
            setTimeout(() => URL.revokeObjectURL(url), 60000);
          });
          show();
        })();

        """
}
