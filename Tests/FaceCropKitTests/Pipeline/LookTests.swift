import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropOutput
import FaceCropCurate
import FaceCropFinish


/// A Fixtures run whose contact sheet and report the tests below look at.
private func fixturesRun(_ folders: [String], extra: [String] = []) throws -> (work: URL, output: URL, status: Int32) {
    let work = try makeTemporaryFolder()
    try copyFixturesMaking(folders, into: work.appendingPathComponent("photos"))
    let output = work.appendingPathComponent("out")
    let result = try runFaceCrop([work.appendingPathComponent("photos").path, "-o", output.path, "-q", "-j", "2"] + extra)
    return (work, output, result.status)
}

private func copyFixturesMaking(_ names: [String], into folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try copyFixtures(names, into: folder)
}

private func readStats(_ output: URL) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
}

/// Mean and standard deviation of a rectangle of gray pixels.
private func meanAndDeviation(_ image: GrayImage, x: Int, y: Int, width: Int, height: Int) -> (Double, Double) {
    var sum = 0.0
    var squares = 0.0
    for row in y..<(y + height) {
        for column in x..<(x + width) {
            let value = Double(image.pixels[row * image.width + column])
            sum += value
            squares += value * value
        }
    }
    let count = Double(width * height)
    let mean = sum / count
    return (mean, (max(0, squares / count - mean * mean)).squareRoot())
}

private func grayImage(_ path: String, fitting side: Int) throws -> GrayImage {
    try Vips.start()
    let bytes = try PhotoBytes(path: path, source: path)
    let header = try Picture.header(of: bytes, source: path)
    return try Picture.load(bytes, header: header, minScale: 1, fittingIn: side, side, source: path).grayPixels(source: path)
}

private func matches(_ pattern: String, in text: String) -> [[String]] {
    let regex = try! NSRegularExpression(pattern: pattern)
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
        (0..<match.numberOfRanges).map { index in
            Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
        }
    }
}

private func unescapeHTML(_ text: String) -> String {
    text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
        .replacingOccurrences(of: "&amp;", with: "&")
}

struct ContactSheetTests {
    @Test(arguments: [(0, 0), (1, 1), (24, 1), (1000, 1), (1001, 2), (100_000, 100)])
    func oneSheetPerThousandCrops(crops: Int, sheets: Int) {
        let names = ContactSheet.names(forCrops: crops)
        #expect(names.count == sheets)
        if sheets == 1 { #expect(names == ["contact-sheet.png"]) }
        if sheets > 1 { #expect(names.first == "contact-sheet-1.png" && names.last == "contact-sheet-\(sheets).png") }
    }

    /// The sheet of a real run: a grid of the documented size whose tile n
    /// is crop n of the manifest (same brightness as the crop file, not
    /// blank), with a label under each tile and background after the last.
    @Test func theSheetShowsEveryCropInManifestOrder() throws {
        let run = try fixturesRun(["faces", "formats", "noface"])
        defer { try? FileManager.default.removeItem(at: run.work) }
        #expect(run.status == 0)
        let crops = try readManifest(run.output).compactMap { $0["crop"] as? String }
        #expect(crops.count == 16)

        // docs/manual.md: columns = ceil(sqrt(n)) (at most 32), tiles 128 x (128 + 18) pixels, 2 apart.
        let columns = Int(Double(crops.count).squareRoot().rounded(.up))
        let rows = (crops.count + columns - 1) / columns
        let sheetPath = run.output.appendingPathComponent("contact-sheet.png").path
        let sheet = try grayImage(sheetPath, fitting: 100_000)
        #expect(sheet.width == columns * 128 + (columns - 1) * 2)
        #expect(sheet.height == rows * 146 + (rows - 1) * 2)

        for (index, crop) in crops.enumerated() {
            let x = (index % columns) * 130
            let y = (index / columns) * 148
            let (tileMean, tileDeviation) = meanAndDeviation(sheet, x: x, y: y, width: 128, height: 128)
            #expect(tileDeviation > 15, "tile \(index + 1) is blank")
            let cropImage = try grayImage(run.output.appendingPathComponent(crop).path, fitting: 128)
            let (cropMean, _) = meanAndDeviation(cropImage, x: 0, y: 0, width: cropImage.width, height: cropImage.height)
            #expect(abs(tileMean - cropMean) < 3, "tile \(index + 1) is not \(crop)")
            // The label strip: dark, with bright digits.
            let label = (0..<18).flatMap { row in (0..<40).map { sheet.pixels[(y + 128 + row) * sheet.width + x + $0] } }
            #expect(label.filter { $0 > 200 }.count > 20, "tile \(index + 1) has no number")
            #expect(label.filter { $0 < 40 }.count > 300)
        }
        if crops.count < rows * columns {
            let last = rows * columns - 1
            let (_, emptyDeviation) = meanAndDeviation(
                sheet, x: (last % columns) * 130, y: (last / columns) * 148, width: 128, height: 146)
            #expect(emptyDeviation < 1)
        }
    }

    @Test func noContactSheetAndNoReportSkipThem() throws {
        let run = try fixturesRun(["faces"], extra: ["--no-contact-sheet", "--no-report"])
        defer { try? FileManager.default.removeItem(at: run.work) }
        #expect(run.status == 0)
        #expect(!FileManager.default.fileExists(atPath: run.output.appendingPathComponent("contact-sheet.png").path))
        #expect(!FileManager.default.fileExists(atPath: run.output.appendingPathComponent("report.html").path))
        #expect(FileManager.default.fileExists(atPath: run.output.appendingPathComponent("manifest.jsonl").path))
    }

    @Test func aDatasetWithoutCropsLosesItsOldSheet() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try copyFixturesMaking(["faces"], into: work.appendingPathComponent("photos"))
        let output = work.appendingPathComponent("out")
        let photos = work.appendingPathComponent("photos").path
        #expect(try runFaceCrop([photos, "-o", output.path, "-q"]).status == 0)
        let sheet = output.appendingPathComponent("contact-sheet.png").path
        #expect(FileManager.default.fileExists(atPath: sheet))
        try FileManager.default.removeItem(atPath: photos + "/faces")
        try copyFixtures(["noface"], into: work.appendingPathComponent("photos"))
        // Every crop goes: more than the removal guard lets through by default.
        #expect(try runFaceCrop([photos, "-o", output.path, "-q", "--allow-removals"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: sheet))
    }
}

struct ReportTests {
    /// What a user checks on the page of the full Fixtures run: the counts
    /// are stats.json's, every failed photo is listed with its reason, every
    /// photo without a face is listed, every crop is shown and links to its
    /// file, and odd file names are escaped.
    @Test func theReportMatchesTheDataset() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixturesMaking(["faces", "noface", "broken", "formats", "rotated"], into: photos)
        let odd = photos.appendingPathComponent("odd <b>&'\"# 100%")
        try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("faces/astronaut.jpg"), to: odd.appendingPathComponent("a&b <i>.jpg"))
        try Data("<script>".utf8).write(to: odd.appendingPathComponent("<script>.jpg"))
        let output = work.appendingPathComponent("out")
        let result = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(result.status == 1)

        let html = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        let stats = try readStats(output)
        let counts = stats["counts"] as! [String: Int]
        let shown = Dictionary(uniqueKeysWithValues: matches(#"data-stat="([a-z_]+)">([^<]*)<"#, in: html).map { ($0[1], $0[2]) })
        #expect(shown["photos"] == "\(stats["photos"] as! Int)")
        #expect(shown["faces"] == "\(stats["faces"] as! Int)")
        #expect(shown["ok"] == "\(counts["ok"]!)")
        #expect(shown["no_face"] == "\(counts["no_face"]!)")
        #expect(shown["error"] == "\(counts["error"]!)")
        #expect(html.contains("data-setting=\"size\">256<"))

        let manifest = try readManifest(output)
        let errors = manifest.filter { $0["status"] as? String == "error" }
        let rows = matches(#"<tr class="error"><td class="source path">([^<]*)</td><td class="reason">([^<]*)</td></tr>"#, in: html)
        #expect(errors.count == counts["error"]! && errors.count == 8)
        #expect(rows.count == errors.count)
        for error in errors {
            let source = error["source"] as! String
            #expect(
                rows.contains { unescapeHTML($0[1]) == source && unescapeHTML($0[2]) == error["error"] as! String },
                "\(source) is not listed with its reason")
        }
        let noFace = matches(#"<li class="noface path">([^<]*)</li>"#, in: html).map { unescapeHTML($0[1]) }
        #expect(noFace.sorted() == manifest.filter { $0["status"] as? String == "no_face" }.map { $0["source"] as! String }.sorted())

        let figures = matches(#"<figure class="crop" id="crop-(\d+)"[^>]*><a href="([^"]*)"><img src="([^"]*)" loading="lazy""#, in: html)
        let crops = manifest.compactMap { $0["crop"] as? String }
        #expect(figures.count == stats["faces"] as! Int && figures.count == crops.count)
        for (index, figure) in figures.enumerated() {
            #expect(figure[1] == "\(index + 1)")
            #expect(figure[2] == figure[3])
            let target = unescapeHTML(figure[2]).removingPercentEncoding!
            #expect(target == crops[index])
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(target).path), "\(target) is missing")
        }
        // Names are escaped in text and attributes, percent-encoded in links.
        #expect(!html.contains("odd <b>") && !html.contains("<i>.jpg"))
        #expect(html.contains("odd &lt;b&gt;&amp;&#39;&quot;# 100%/a&amp;b &lt;i&gt;.jpg"))
        #expect(html.contains("href=\"odd%20%3Cb%3E%26%27%22%23%20100%25/a%26b%20%3Ci%3E.jpg.face0.jpg\""))
        #expect(!html.contains("http://") && !html.contains("https://"))
        // The only scripts are the page's own: the embedded rejections file,
        // the tick boxes' code and the crops' order.
        #expect(html.components(separatedBy: "<script").count == 4)
        #expect(html.contains("<select id=\"crop-order\">"))
        // Each crop shows its face_quality and what is wrong with it (worst
        // first; nothing when nothing is), and carries the score to sort by.
        for face in manifest where face["crop"] != nil {
            let score = try #require(face["face_quality"] as? Double), reasons = try #require(face["quality_reasons"] as? [String])
            #expect(html.contains("data-quality=\"\(score)\""))
            let shown = "quality \(String(format: "%.2f", score))" + (reasons.isEmpty ? "\n" : " (\(reasons.joined(separator: ", ")))")
            #expect(html.contains(shown), "\(shown)")
        }
        #expect(html.contains("<script type=\"application/json\" id=\"rejections-file\">\"\"</script>"))

        // Each crop's tick box holds the line `facecrop reject` would write for it.
        let ticks = matches(#"<input type="checkbox" class="reject" value="([^"]*)">"#, in: html).map { unescapeHTML($0[1]) }
        let faces = manifest.filter { $0["crop"] != nil }
        #expect(ticks.count == faces.count)
        for (tick, face) in zip(ticks, faces) {
            let box = (face["bbox"] as! [Int]).map(String.init).joined(separator: ",")
            #expect(tick == "\(face["sha256"] as! String) \(box)  # \(face["source"] as! String) face \(face["face"] as! Int)")
        }
    }

    /// 25 crops ten to a page: three pages with links between them, each
    /// crop on exactly one; then one page again, and the extra pages go.
    @Test func pagesHoldAFixedNumberOfCrops() async throws {
        let run = try fixturesRun(["faces", "formats", "rotated", "noface"])
        defer { try? FileManager.default.removeItem(at: run.work) }
        // The run's own records, as the finishing steps read them.
        let records = StateStore(output: run.output.path, shard: nil).records
        let faces = records.flatMap(\.crops).count
        #expect(faces == 25)
        let finished = FinishedRun(
            output: run.output.path, records: records,
            stats: .object([("photos", .int(Array(records).count)), ("faces", .int(faces))]), temporaries: TemporaryFiles(),
            stop: StopRequest(), rejections: try RejectionsFile.parse("# kept </script> <b>as is\n", file: "r.txt"))
        #expect(Report.write(finished, sheets: [], pageSize: 10).isEmpty)
        var seen: [Int] = []
        for (page, name) in ["report.html", "report-2.html", "report-3.html"].enumerated() {
            let html = try String(contentsOf: run.output.appendingPathComponent(name), encoding: .utf8)
            seen += matches(#"<figure class="crop" id="crop-(\d+)""#, in: html).map { Int($0[1])! }
            #expect(html.contains("<nav class=\"pages\">"))
            #expect(html.contains("<span>\(page + 1)</span>"))
            #expect(html.contains("id=\"summary\"") == (page == 0))
            #expect(html.contains("rel=\"next\"") == (page < 2))
            // Every page embeds the rejections file; its "<" cannot end the script.
            #expect(html.contains(##"id="rejections-file">"# kept \u003c/script> \u003cb>as is\n"</script>"##))
        }
        #expect(seen == Array(1...25))
        #expect(!FileManager.default.fileExists(atPath: run.output.appendingPathComponent("report-4.html").path))

        #expect(Report.write(finished, sheets: [], pageSize: 500).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: run.output.appendingPathComponent("report-2.html").path))
        #expect(!FileManager.default.fileExists(atPath: run.output.appendingPathComponent("report-3.html").path))
    }
}
