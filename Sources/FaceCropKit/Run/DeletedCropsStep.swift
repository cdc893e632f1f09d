import Foundation
import FaceCropCore
import FaceCropOutput
import FaceCropCurate

extension DeletedCrops {
    /// Records the deleted crops in the setup's rejections file (kept line
    /// for line, replaced atomically); returns how many.
    package static func record(journal: JournalContents, setup: inout RunSetup, temporaries: TemporaryFiles)
        throws(FaceCropError) -> Int
    {
        let walkSetup = setup
        let deleted = try find(
            statePath: setup.store.statePath, journal: journal, walk: { () throws(FaceCropError) in try Plan.walk(walkSetup) },
            output: setup.output, rejections: setup.rejections)
        guard !deleted.isEmpty else { return 0 }
        var file = setup.rejections
        let added = file.add(deleted)
        do throws(RejectionsError) {
            try file.save(path: setup.rejectionsPath, temporaries: temporaries)
        } catch {
            throw .outputUnusable(setup.rejectionsPath, reason: error.reason)
        }
        setup.rejections = file
        return added
    }
}

extension Plan {
    /// Why an unchanged photo's earlier record no longer fits the rejections
    /// file: a face it cropped is rejected now, or one it left out is not.
    package static func rejectionChange(_ record: PhotoRecord, rejections: RejectionsFile) -> String? {
        guard record.status == .ok, record.sha256 != nil else { return nil }
        var rejected = false, unrejected = false
        // A video's faces by track (`RejectionsFile.rejected`).
        for (face, now) in zip(record.faces, rejections.rejected(record)) {
            if now && face.status != .rejected { rejected = true }
            if !now && face.status == .rejected { unrejected = true }
        }
        switch (rejected, unrejected) {
        case (true, true): return "rejections changed"
        case (true, false): return "rejected"
        case (false, true): return "unrejected"
        case (false, false): return nil
        }
    }
}
