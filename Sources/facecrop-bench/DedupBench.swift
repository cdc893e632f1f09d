import FaceCropCurate
import FaceCropBench

/// `facecrop-bench dedup N`: `--dedup`'s grouping (`Dedup.keepers`) on N
/// generated faces (`GeneratedDedup`), and with `pairwise` the quadratic
/// comparison it replaced (`Dedup.pairwiseKeepers`) on the same faces in the
/// same process, checked to give the same keepers.
enum DedupBench {
    struct Figures {
        var faces: Int
        var duplicates = 0
        var generateSeconds: Double
        var indexSeconds = 0.0
        var indexCPUSeconds = 0.0
        var indexPeakMB = 0
        var pairwiseSeconds: Double?
        var pairwiseCPUSeconds: Double?
        var same: Bool?
    }

    static func run(faces count: Int, index: Bool = true, pairwise: Bool, threshold: Int = Dedup.defaultThreshold, seed: UInt64 = 1) -> Figures {
        let generated = timed { GeneratedDedup.faces(count, seed: seed) }
        let faces = generated.result
        var figures = Figures(faces: count, generateSeconds: generated.wall)
        var indexed: [Int?]?
        if index {
            let run = timed { Dedup.keepers(faces, threshold: threshold) }
            (figures.indexSeconds, figures.indexCPUSeconds) = (run.wall, run.cpu)
            figures.indexPeakMB = peakMB()
            figures.duplicates = run.result.count { $0 != nil }
            indexed = run.result
        }
        if pairwise {
            let run = timed { Dedup.pairwiseKeepers(faces, threshold: threshold) }
            (figures.pairwiseSeconds, figures.pairwiseCPUSeconds) = (run.wall, run.cpu)
            if let indexed { figures.same = indexed == run.result } else { figures.duplicates = run.result.count { $0 != nil } }
        }
        return figures
    }
}
