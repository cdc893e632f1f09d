import Foundation

/// A finished run, as the steps that read the whole dataset see it.
struct FinishedRun: Sendable {
    var output: String
    var options: Options
    /// Every photo's record, in manifest order.
    var records: [PhotoRecord]
    /// stats.json as written.
    var stats: JSON
    var temporaries: TemporaryFiles
    var stop: StopRequest
}

/// Steps that run after the manifest is written and read the whole dataset:
/// each returns the errors it met (reported on stderr, exit status 1), never
/// throws. Add a step here with its own file; keep each one streaming (the
/// dataset may hold 100,000 crops).
enum Finishers {
    static func run(_ run: FinishedRun) async -> [String] {
        var failures: [String] = []
        // A shard sees only part of the dataset; `facecrop merge` makes the
        // sheets and the report of the whole.
        if run.options.shard != nil { return failures }
        var sheets: [String] = []
        if run.options.contactSheet {
            let made = ContactSheet.write(run)
            sheets = made.names
            failures += made.failures
        }
        if run.options.report, run.stop.requested == nil {
            failures += Report.write(run, sheets: sheets)
        }
        return failures
    }
}
