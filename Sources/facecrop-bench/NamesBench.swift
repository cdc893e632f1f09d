import FaceCropPeople
import FaceCropBench

/// `facecrop-bench names N`: the people step (`Naming.apply`) on N faces
/// and the people file of `GeneratedNames`. The grouping itself is
/// `facecrop-bench people`'s measure.
enum NamesBench {
    struct Figures {
        var faces: Int
        var statements: Int
        var people: Int
        var unassigned: Int
        var applySeconds: Double
    }

    static func run(faces count: Int, seed: UInt64 = 1) -> Figures {
        let input = GeneratedNames(faces: count, seed: seed)
        let run = timed { Naming.apply(input.statements, to: input.faces) }
        return Figures(
            faces: count, statements: input.statements.count, people: Set(run.result.persons.compactMap { $0 }).count,
            unassigned: run.result.persons.count { $0 == nil }, applySeconds: run.wall)
    }
}
