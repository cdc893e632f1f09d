import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropPeople
import FaceCropFinish

extension PickCommand {
    /// The crops one pick chooses among, and where its files go.
    package struct Pool {
        package var folder: String
        package var person: String?
        package var candidates: [PickCandidate]
        package var count: Int
    }

    /// Reads the dataset, chooses, writes; returns how many crops were
    /// written and the rest of the summary line.
    package static func pick(_ settings: Settings, stop: StopRequest, temporaries: TemporaryFiles) throws(FaceCropError) -> (Int, String) {
        let (folder, output) = (settings.operands[0], settings.operands[1])
        let dataset = try PickDataset.load(folder)
        let pools = try pools(settings, dataset)
        let (crop, made) = cropSettings(settings, dataset: folder)
        try Vips.start()  // one thread, no cache, as in a run: before the first cut
        try writingTo(output) { () throws(WriteFailure) in try AtomicFile.makeFolder(output) }
        let cutter = PickCutter(
            photos: settings.photos, settings: crop, datasetSizing: made, maxUpscale: settings.maxUpscale, scratch: output,
            temporaries: temporaries)
        let writer = PickWriter(output: output, dataset: folder, cutter: cutter, caption: settings.caption, temporaries: temporaries)
        let descriptors = dataset.grouped ? PickDescriptors(dataset: folder) : nil
        let scores = PickScore(dataset.candidates)
        var written: [PickWriter.Written] = []
        var leftOut: [PickLeftOut] = []
        for pool in pools where stop.requested == nil {
            let groups = PickGroups.groups(pool.candidates, descriptors: descriptors)
            let excluded = tooEnlarged(pool.candidates, sizing: cutter.sizing, limit: settings.maxUpscale)
            let choices = PickChooser.choose(
                pool.candidates, groups: groups, scores: scores, count: pool.count, perTrack: settings.perTrack, excluded: excluded)
            let (made, failed) = try writer.writeCrops(choices, folder: pool.folder, stop: stop)
            written += made
            leftOut += PickLeftOut.reasons(
                pool.candidates, groups: groups, chosen: choices, excluded: excluded, scores: scores, perTrack: settings.perTrack,
                count: pool.count) + failed
            leftOut += dataset.dropped.filter { pools.count == 1 && pool.person == nil || $0.candidate.person == pool.person }
        }
        if stop.requested != nil { return (written.count, "") }
        writer.removeStale(keeping: written)
        try writer.writeMetadata(written)
        let card = PickCard.text(written, person: pools.count == 1 ? pools[0].person : nil, dataset: folder)
        try writingTo(output) { () throws(WriteFailure) in try PickCard.write(card, to: output, temporaries: temporaries) }
        let sheets = try writer.writeSheets(written)
        let request = PickReport.Request(
            dataset: folder, mode: settings.perPerson != nil ? "per_person" : settings.person != nil ? "person" : "photos",
            person: settings.person, count: settings.perPerson ?? settings.count ?? defaultCount, size: crop.size,
            margin: crop.margin, pad: crop.pad.rawValue, maxUpscale: settings.maxUpscale, caption: settings.caption,
            scoreFrom: dataset.candidates.contains { $0.faceQuality == nil } ? PickScore.Source.sharpnessAndSize.rawValue : PickScore.Source.faceQuality.rawValue,
            sheets: sheets)
        let report = PickReport.json(request, written, leftOut: leftOut).pretty() + "\n"
        try writingTo(output) { () throws(WriteFailure) in
            try AtomicFile.write(Array(report.utf8), to: output + "/" + PickReport.fileName, temporaries: temporaries)
        }
        return (written.count, summary(pools, written, leftOut: leftOut.filter(\.forSize).count))
    }

    /// The crops whose cut would be enlarged past `--max-upscale`, by crop
    /// number, with the reason: left out before choosing, so that a
    /// near-duplicate with more pixels takes their place.
    package static func tooEnlarged(_ pool: [PickCandidate], sizing: PickSizing, limit: Double) -> [Int: String] {
        var out: [Int: String] = [:]
        for candidate in pool {
            let factor = sizing.enlargement(candidate)
            if factor > limit + 1e-9 {
                out[candidate.number] = PickSizing.upscaleReason(factor, side: sizing.sourceSide(candidate), size: sizing.size, limit: limit)
            }
        }
        return out
    }

    package static func writingTo(_ output: String, _ body: () throws(WriteFailure) -> Void) throws(FaceCropError) {
        do throws(WriteFailure) { try body() } catch { throw .outputUnusable(output, reason: "cannot use output folder '\(output)': \(error.reason)") }
    }

    /// ` of 'alice' (3 pose bins, 4 years; 2 copied ...)`.
    package static func summary(_ pools: [Pool], _ written: [PickWriter.Written], leftOut: Int = 0) -> String {
        let who = pools.count == 1 ? pools[0].person.map { " of '\($0)'" } ?? " by photo" : " of \(pools.count) people"
        let bins = Set(written.map(\.choice.bin).filter { $0 != .unknown }).count
        let years = Set(written.compactMap(\.choice.candidate.year)).count
        let copied = written.filter { !$0.cut }.count
        let binText = bins == 0 ? "pose not known" : "\(bins) pose bin\(bins == 1 ? "" : "s")"
        let yearText = years == 0 ? "no capture dates" : "\(years) year\(years == 1 ? "" : "s")"
        let copiedText = copied == 0 ? "" : "; \(copied) copied from the dataset (photo not found or changed)"
        let leftText = leftOut == 0 ? "" : "; \(leftOut) left out as enlarged past --max-upscale or not at the set's size (pick.json says which)"
        return who + " (\(binText), \(yearText)\(copiedText)\(leftText))"
    }

    /// The pools the request asks for.
    package static func pools(_ settings: Settings, _ dataset: PickDataset) throws(FaceCropError) -> [Pool] {
        let path = dataset.folder
        if !dataset.grouped, let name = settings.person != nil ? "--person" : settings.perPerson != nil ? "--per-person" : nil {
            throw .usage("'\(path)' was made without --people, so its crops have no person and '\(name)' cannot be used; pick by photo with --count alone, or run facecrop with --people into it first")
        }
        if let typed = settings.person {
            let people = PersonLookup(dataset: path)
            let person = people.label(for: typed) ?? typed
            let candidates = dataset.candidates.filter { $0.person == person }
            guard !candidates.isEmpty else {
                let near = people.suggestion(for: typed)
                throw .usage("no person '\(typed)' in '\(path)'\(near.isEmpty ? ";" : near) 'facecrop people \(path)' lists its people")
            }
            return [Pool(folder: "", person: person, candidates: candidates, count: settings.count ?? defaultCount)]
        }
        guard let each = settings.perPerson else {
            return [Pool(folder: "", person: nil, candidates: dataset.candidates, count: settings.count ?? defaultCount)]
        }
        var byPerson: [String: [PickCandidate]] = [:]
        for candidate in dataset.candidates {
            if let person = candidate.person { byPerson[person, default: []].append(candidate) }
        }
        // A person named like one of pick's files gets a folder of another name.
        var used: Set<String> = [HFMetadata.fileName, PickReport.fileName, "contact-sheet.png"]
        return byPerson.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { person in
            Pool(folder: folderName(person, used: &used), person: person, candidates: byPerson[person]!, count: each)
        }
    }

    /// A person's folder: the label with '/', '\', control characters and
    /// a leading '.' replaced by '_', cut to whole characters within 240
    /// bytes of UTF-8 (a name may be 64 four-byte characters; a file name
    /// 255 bytes), made unique with "-2", "-3", ... in the people's byte
    /// order: the same names give the same folders on every run.
    package static func folderName(_ person: String, used: inout Set<String>) -> String {
        var name = String(
            String.UnicodeScalarView(
                person.unicodeScalars.map { $0 == "/" || $0 == "\\" || $0.value < 0x20 || PeopleName.isControl($0) ? "_" : $0 }))
        if name.hasPrefix(".") || name.isEmpty { name = "_" + name.dropFirst() }
        while name.utf8.count > 240 { name.removeLast() }
        return used.insertUnique(name)
    }

    /// The crop settings: the dataset's (stats.json), with `--size`,
    /// `--margin` and `--pad` (`inside` unless asked); and how the dataset's
    /// own crops were sized.
    package static func cropSettings(_ settings: Settings, dataset: String) -> (CropSettings, PickSizing) {
        var options = Options()
        let stats = JSONReading.object(atPath: dataset + "/stats.json")
        if let recorded = stats?["settings"] as? [String: Any] {
            if let size = recorded["size"] as? Int { options.size = size }
            if let margin = PickCandidate.number(recorded["margin"]) { options.margin = margin }
            if let format = (recorded["format"] as? String).flatMap(OutputFormat.init(rawValue:)) { options.format = format }
            if let quality = recorded["quality"] as? Int { options.quality = quality }
            if let pad = (recorded["pad"] as? String).flatMap(PadMode.init(rawValue:)) { options.pad = pad }
        }
        let made = PickSizing(size: options.size, margin: options.margin, pad: options.pad)
        if let size = settings.size { options.size = size }
        if let margin = settings.margin { options.margin = margin }
        options.pad = settings.pad
        return (CropSettings(options), made)
    }
}
