import Foundation
import FaceCropCore
import FaceCropOutput

/// `facecrop PHOTOS -o OUT`: setup -> plan -> pipeline -> commit -> finish,
/// each step a function in its own file under Run/.
extension FaceCropCommand {
    package static func execute(_ options: Options, stop: StopRequest, temporaries: TemporaryFiles) async throws(FaceCropError) -> Int32 {
        let started = ContinuousClock.now
        var setup = try RunSetup(options, stop: stop)
        // Held to the end of the run, however it ends.
        defer { setup.lock?.release() }
        let (feed, stateHash, stateSettings) = try Plan.make(&setup, temporaries: temporaries)
        if setup.readOnly {
            return CheckReport.report(feed, stateHash: stateHash, stateSettings: stateSettings, setup: setup)
        }
        var detectors = try setup.takeDetectors()
        let files = try RunFiles(setup, temporaries: temporaries)
        let processed = await RunPipeline.run(feed, detectors: &detectors, files: files, setup: setup, stop: stop)
        let committed = RunCommit.commit(
            processed, feed: feed, files: files, setup: setup, elapsed: Progress.seconds(ContinuousClock.now - started))
        return await RunFinish.finish(committed, processed: processed, setup: setup, temporaries: temporaries, stop: stop)
    }
}

/// The files a run writes as its photos finish: the journal, the state file
/// and the manifest (the last two under temporary names until the commit).
package struct RunFiles {
    package var journal: Journal
    package var state: StateWriter
    package var manifest: JSONLinesWriter
    package var temporaries: TemporaryFiles

    package init(_ setup: RunSetup, temporaries: TemporaryFiles) throws(FaceCropError) {
        let store = setup.store
        do throws(WriteFailure) {
            try store.prepare()
            temporaries.use(folder: store.temporaryFolder)
            journal = try Journal(path: store.journalPath, settingsHash: setup.settingsHash)
            state = try store.writer(settingsHash: setup.settingsHash, settings: setup.described, temporaries: temporaries)
            manifest = try JSONLinesWriter(
                outputRoot: setup.output, name: "manifest\(store.suffix).jsonl", temporaries: temporaries)
        } catch {
            throw .outputUnusable(setup.output, reason: error.reason)
        }
        self.temporaries = temporaries
    }
}
