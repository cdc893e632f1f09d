import Foundation
import FaceCropCore
import FaceCropInputs
import FaceCropOutput

/// The guard on removals: a run that would remove more than half of the
/// dataset's crops, or every crop of an input in which the walk finds
/// nothing now, stops before it changes anything (exit 75), unless
/// `--allow-removals`. A photo not found is removed with its crops, which
/// is right when it was deleted and wrong when its drive is not mounted;
/// both look the same to the walk, and only the size of the loss tells
/// them apart. Half: a library rarely loses more than half of its photos
/// by intent between two runs, and an unmounted drive or a failed volume
/// mount loses all of them (or all of one input).
///
/// The guard walks the plan once before the run (the walk joined with the
/// state, as the run does): the library is walked twice. Removed crops are
/// deleted, not kept aside (see docs/faq.md), so the guard is the only undo.
///
/// `--no-prune` removes nothing, but marks the photos not found missing:
/// a drive not mounted would turn the whole dataset into missing photos,
/// so the same guard stops it, counting the crops that would be newly
/// marked (those marked by an earlier run count as held only).
package enum RemovalGuard {
    /// What the plan would remove, counted in crops.
    package struct Tally: Equatable {
        /// The crops the dataset (this shard's records) holds now.
        package var held = 0
        /// The crops of photos not found now.
        package var removed = 0
        /// Removed crops by photo folder, for the message.
        package var folders: [Folder: Int] = [:]
        /// Labels of the inputs in which the walk found nothing (no photo, no problem).
        package var emptyInputs: [String] = []

        package init(held: Int = 0, removed: Int = 0, folders: [Folder: Int] = [:], emptyInputs: [String] = []) {
            (self.held, self.removed, self.folders, self.emptyInputs) = (held, removed, folders, emptyInputs)
        }

        /// Whether the guard stops the run.
        package var refused: Bool { removed * 2 > held || !emptyInputs.isEmpty }
    }

    /// A photo folder: its input's label and its path in that input ("" for the input itself).
    package struct Folder: Hashable {
        package var label: String
        package var path: String
        var name: String { PhotoFinder.join(label, path) }

        package init(label: String, path: String) { (self.label, self.path) = (label, path) }
    }

    /// Counts what `join` would remove: crops of gone records against every
    /// crop the state and the journal hold; `labels` are the inputs' labels.
    package static func tally(_ join: inout PlanJoin, labels: [String], keepsMissing: Bool = false) -> Tally {
        var tally = Tally()
        var found: Set<String> = []
        var heldBy: [String: Int] = [:]
        while let step = join.next() {
            switch step {
            case .gone(let record, _, let crops):
                let unique = Set(crops).count
                tally.held += unique
                // --no-prune: already missing, it stays so; nothing new is lost.
                if keepsMissing && record.missing { continue }
                tally.removed += unique
                heldBy[record.label, default: 0] += unique
                if unique > 0 {
                    let folder = (record.source as NSString).deletingLastPathComponent
                    tally.folders[Folder(label: record.label, path: folder), default: 0] += unique
                }
            case .work(let work):
                let label: String
                var crops = Set(work.oldCrops)
                switch work.item {
                case .photo(let photo, _): label = photo.label
                case .kept(let record):
                    label = record.label
                    crops.formUnion(record.crops)
                case .problem(let problem):
                    label = problem.label
                    crops.formUnion(work.earlier?.crops ?? [])
                }
                found.insert(label)
                tally.held += crops.count
            }
        }
        tally.emptyInputs = labels.filter { !found.contains($0) && heldBy[$0, default: 0] > 0 }
        return tally
    }

    /// The guard's message (the whole of it, after "facecrop: error: "):
    /// how many crops would go, from which folders, and what to do.
    package static func message(_ tally: Tally, inputs: [String], keepsMissing: Bool = false, output: String? = nil) -> String {
        let labels = PhotoFinder.labels(for: inputs)
        let root = madeFrom(tally, inputs: inputs)
        // A folder as the user knows it: under its input's path, or its label when no input has it now.
        func shown(_ folder: Folder) -> String {
            if let index = labels.firstIndex(of: folder.label) {
                let input = root ?? trimmed(inputs[index])
                return "'" + (folder.path.isEmpty ? input : PhotoFinder.join(input, folder.path)) + "'"
            }
            return "'\(folder.name.isEmpty ? "." : folder.name)' (of an input not given now)"
        }
        var why: [String] = []
        if tally.removed * 2 > tally.held { why.append("more than half of them") }
        for label in tally.emptyInputs {
            if let index = labels.firstIndex(of: label) { why.append("all of those of the input '\(inputs[index])', where no photo is found now") }
        }
        let action = keepsMissing ? "mark \(tally.removed) of the dataset's \(tally.held) crops missing" : "remove \(tally.removed) of the dataset's \(tally.held) crops"
        var lines = ["this run would \(action), those of the photos not found now (\(why.joined(separator: "; "))). Nothing was changed. By folder:"]
        let folders = tally.folders.keys.sorted {
            $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) || ($0.name == $1.name && $0.label < $1.label)
        }
        let listed = 10
        for folder in folders.prefix(listed) { lines.append("  \(shown(folder)): \(tally.folders[folder]!)") }
        if folders.count > listed {
            let rest = folders.dropFirst(listed).reduce(0) { $0 + tally.folders[$1]! }
            lines.append("  and \(folders.count - listed) more folders: \(rest)")
        }
        if let root, let input = inputs.first {
            let command = "facecrop \(shellQuoted(root))" + (output.map { " -o \(shellQuoted($0))" } ?? "")
            lines.append(
                "The dataset was made from '\(root)', not from '\(trimmed(input))' inside it: its photos are named from '\(root)'. "
                    + "To update it, run '\(command)' (with the options you made it with); for a dataset of '\(trimmed(input))' alone, give another -o.")
        }
        lines.append(
            "If a drive or share is not mounted, mount it and run again. If the photos are really gone, run again with "
                + (keepsMissing
                    ? "--allow-removals: with --no-prune their crops and manifest lines are kept, marked missing."
                    : "--allow-removals: their crops and manifest lines are then deleted, and cannot be brought back."))
        return lines.joined(separator: "\n")
    }

    /// The folder a single input's dataset was made from when the input is
    /// now a folder inside it (`facecrop Photos/phone -o ds` for a dataset of
    /// `Photos`): the input less its last 1, 2, ... names, when the photos
    /// that would go lie under those names (`phone/2023/...`). The longest
    /// such tail wins; nil when none fits or there are several inputs.
    package static func madeFrom(_ tally: Tally, inputs: [String]) -> String? {
        guard inputs.count == 1 else { return nil }
        let input = trimmed(inputs[0])
        var names = input.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let folders = tally.folders.keys.filter { $0.label.isEmpty }.map(\.path)
        for count in stride(from: names.count - 1, through: 1, by: -1) {
            let tail = names.suffix(count)
            guard !tail.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { continue }
            let path = tail.joined(separator: "/")
            guard folders.contains(where: { $0 == path || $0.hasPrefix(path + "/") }) else { continue }
            names.removeLast(count)
            let root = names.joined(separator: "/")
            return root.isEmpty ? (input.hasPrefix("/") ? "/" : ".") : root
        }
        return nil
    }

    private static func trimmed(_ input: String) -> String {
        var input = input
        while input.count > 1, input.hasSuffix("/") { input.removeLast() }
        return input
    }

    /// `text` as a shell word: as it is when it is plain, else in single quotes.
    private static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+,:@%".unicodeScalars.contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Step 2's guard, before anything is written (the deleted crops'
    /// rejections included): throws `removalsRefused` for a run; for
    /// `--dry-run`, says on stderr that a run would stop. Nothing to guard
    /// with `--allow-removals`, `--check` or no earlier state.
    package static func check(_ setup: RunSetup, state: StateIndex, journal: JournalContents) throws(FaceCropError) {
        let options = setup.options
        guard !options.allowRemovals, !options.check, state.settingsHash != nil else { return }
        var rules = PlanJoin.Rules(overwrite: options.overwrite, stateCurrent: state.settingsHash == setup.settingsHash)
        if let shard = options.shard { rules.owns = { shard.owns(label: $0, source: $1) } }
        rules.follow(setup.settings)
        var join = try Plan.join(setup, state: state, journal: journal, rules: rules)
        let tally = tally(&join, labels: PhotoFinder.labels(for: options.inputs), keepsMissing: !options.prune)
        guard tally.refused else { return }
        let text = message(tally, inputs: options.inputs, keepsMissing: !options.prune, output: options.output)
        guard !options.dryRun else {
            Terminal.stderr("facecrop: note: a run would stop here (exit \(ExitStatus.removalsRefused)): \(text)\n")
            return
        }
        throw .removalsRefused(text)
    }
}

/// A photo that was in the dataset and cannot be read now (a file it
/// cannot open or read, one that vanished after the walk listed it, an I/O
/// error, a path the walk could not look at) keeps its earlier record: its
/// crops and manifest lines stay as they were, and the error is said on
/// stderr and fails the run (exit 1). The next run tries it again.
package enum ReadFailure {
    /// The record to keep instead of `record`, the failure of `work`'s
    /// photo; nil when `record` is not such a failure or there is nothing
    /// whole to keep (no earlier record with these settings, an earlier
    /// failure, or one of its crops missing).
    static func keeps(_ record: PhotoRecord, work: PlanWork?, output: String) -> PhotoRecord? {
        guard record.status == .error, let work, let earlier = work.earlier, earlier.status != .error else { return nil }
        switch work.item {
        case .problem(let problem): guard problem.unreadable else { return nil }
        case .photo: guard case .unreadable? = record.error else { return nil }
        case .kept: return nil
        }
        guard earlier.crops.allSatisfy({ access(output + "/" + $0, F_OK) == 0 }) else { return nil }
        return earlier
    }

    /// The error line's text (after "facecrop: error: ").
    static func message(_ record: PhotoRecord) -> String {
        let error = record.error?.description ?? "'\(FileName.display(record.source))': cannot read file"
        return error + " (its crops and manifest lines are kept as the last run wrote them; the next run tries it again)"
    }

    /// The line after the summary: how many photos were kept so.
    static func summary(_ count: Int) -> String {
        let photos = count == 1 ? "1 photo that was" : "\(count) photos that were"
        return "facecrop: \(photos) in the dataset could not be read: kept as the last run wrote them (see the errors above)"
    }
}
