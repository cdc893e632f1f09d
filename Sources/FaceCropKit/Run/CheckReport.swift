import Foundation

/// `--check` and `--dry-run`: say what a run would do, change nothing.
enum CheckReport {
    static func report(_ plan: Plan, loaded: StateStore.Loaded, setup: RunSetup) -> Int32 {
        let options = setup.options
        let output = setup.output
        var lines: [String] = []
        let manifestPath = output + "/manifest\(setup.store.suffix).jsonl"
        if options.check, loaded.settingsHash != nil, loaded.settingsHash != setup.settingsHash {
            lines.append("settings changed: every photo would be processed again")
        }
        if options.check, access(manifestPath, F_OK) != 0 {
            lines.append("missing: \(manifestPath)")
        }
        for item in plan.items {
            switch item {
            case .kept: continue
            case .problem(let problem): lines.append("error: \(problem.source): \(problem.reason)")
            case .photo(let photo, let previous):
                if let previous, Plan.sameContent(photo, as: previous) { continue }
                let name = photo.outputPrefix
                if let reason = plan.reasons[StateStore.key(label: photo.label, source: photo.source)] {
                    lines.append("\(reason): \(name)")
                } else {
                    lines.append((previous == nil ? "new: " : "changed: ") + name)
                }
            }
        }
        for gone in plan.gone { lines.append("removed: \(gone)") }
        if !lines.isEmpty { Terminal.stdout(lines.joined(separator: "\n") + "\n") }
        if options.dryRun { return ExitStatus.success }
        if lines.isEmpty, !options.quiet {
            Terminal.stderr("facecrop: '\(output)' is up to date (\(plan.items.count) photos)\n")
        }
        return lines.isEmpty ? ExitStatus.success : ExitStatus.failure
    }
}
