import Foundation
import FaceCropCore
import FaceCropInputs
import FaceCropPeople

/// `--check` and `--dry-run`: say what a run would do, change nothing.
/// Lines are printed as the plan goes, gone photos last.
package enum CheckReport {
    package static func report(_ feed: PlanFeed, stateHash: String?, stateSettings: [String: Any]?, setup: RunSetup) -> Int32 {
        let options = setup.options
        let output = setup.output
        let out = LineOutput()
        let manifestPath = output + "/manifest\(setup.store.suffix).jsonl"
        if options.check, stateHash != nil, stateHash != setup.settingsHash {
            let changed = changedSettings(stateSettings, setup.described)
            out.line("settings changed: every photo would be processed again" + (changed.isEmpty ? "" : " (\(changed))"))
        }
        if options.check, access(manifestPath, F_OK) != 0 {
            out.line("missing: \(manifestPath)")
        }
        // --people: the grouping's file, and the grouping itself, are the whole dataset's.
        let people = setup.settings.people && options.shard == nil
        let embeddings = output + "/" + EmbeddingsFile.fileName
        if people, options.check, stateHash != nil, access(embeddings, F_OK) != 0 {
            out.line("missing: \(embeddings)")
        }
        while let work = feed.nextWork() { say(work, to: out, setup: setup) }
        feed.gone?.forEach { out.line("removed: \($0)") }
        if options.check, stateHash != nil, access(manifestPath, F_OK) == 0 {
            for crop in UnnamedCrops.find(output: output, inputs: options.inputs) { out.notice("unnamed crop: \(crop)") }
        }
        if people, out.lines > out.notices {
            out.line("people: the faces would be grouped again (ids kept where most of a person's faces stay)")
        } else if people, options.check {
            // Nothing to group again: what the people file would change in the grouping the state holds.
            for line in PeopleCorrections.differences(setup.store.records, people: setup.people) { out.line(line) }
        }
        out.flush()
        if options.dryRun { return ExitStatus.success }
        if out.lines == 0, !options.quiet {
            Terminal.stderr("facecrop: '\(output)' is up to date (\(feed.count) photos)\n")
        }
        return out.lines == 0 ? ExitStatus.success : ExitStatus.failure
    }
}

extension CheckReport {
    /// The line (or none) a step of the plan gives.
    private static func say(_ work: PlanWork, to out: LineOutput, setup: RunSetup) {
        let (dates, output) = (setup.options.dates, setup.output)
        switch work.item {
        case .kept(let record):
            let name = PhotoFinder.join(record.label, record.source)
            // A run would drop it now (--since / --until changed).
            if record.status != .error, !dates.admits(record.taken) {
                out.line("left out by --since/--until: \(name)")
            } else if record.missing {
                // --no-prune: kept, but the dataset is not what its photos make.
                out.notice("missing photo: \(name)")
                for crop in record.crops where access(output + "/" + crop, F_OK) != 0 { out.notice("crop file gone: \(crop)") }
            } else if work.foundAgain {
                out.notice("found again: \(name)")
            }
        case .problem(let problem): out.line("error: \(problem.source): \(problem.reason)")
        case .photo(let photo, let previous):
            // Photos outside the dates are never recorded: not new.
            if Plan.outside(dates, photo, videoTools: setup.videoTools) {
                if work.earlier != nil { out.line("left out by --since/--until: \(photo.outputPrefix)") }
                return
            }
            if let previous, Plan.sameContent(photo, as: previous) {
                if work.foundAgain { out.notice("found again: \(photo.outputPrefix)") }
                return
            }
            let name = photo.outputPrefix
            if let reason = work.reason {
                out.line("\(reason): \(name)")
            } else {
                out.line((previous == nil ? "new: " : "changed: ") + name)
            }
        }
    }

    /// The settings that differ, as `name: old -> new` ("none": absent), in
    /// the order the run writes them: `quality_score: none -> 2` for a
    /// dataset scored before the score had a version.
    package static func changedSettings(_ old: [String: Any]?, _ new: JSON) -> String {
        guard let old, let data = new.serialized().data(using: .utf8),
            let current = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], case .object(let members) = new
        else { return "" }
        func text(_ value: Any?) -> String {
            guard let value, !(value is NSNull) else { return "none" }
            if let string = value as? String { return string }
            if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) {
                return String(decoding: data, as: UTF8.self)
            }
            return "\(value)"
        }
        let names = members.map(\.0) + old.keys.sorted().filter { current[$0] == nil }
        return names.compactMap { name in
            let (before, after) = (text(old[name]), text(current[name]))
            return before == after ? nil : "\(name): \(before) -> \(after)"
        }.joined(separator: ", ")
    }
}

/// Lines for stdout, written in 64 KB blocks as they come.
package final class LineOutput {
    private var buffer = ""
    package private(set) var lines = 0
    /// Lines that say the dataset is not what its photos make, though its
    /// faces stay (a missing photo, a crop no line names): no grouping again.
    package private(set) var notices = 0

    package func notice(_ text: String) {
        notices += 1
        line(text)
    }

    package func line(_ text: String) {
        buffer += text
        buffer += "\n"
        lines += 1
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    package func flush() {
        if !buffer.isEmpty { Terminal.stdout(buffer) }
        buffer = ""
    }
}
