import Foundation
import Testing
import FaceCropCore
import FaceCropInputs
import FaceCropOutput
import FaceCropKit

/// The plan's side of `--no-prune` and `--overwrite`, on made-up records:
/// which records are kept marked missing, which are found again, what
/// stands in for a photo --overwrite cannot read, and what the guard counts.
struct KeepUnitTests {
    let join = PlanJoinTests()

    /// Each step as text: "kept a", "missing a", "found again a", "gone a",
    /// "<reason> a" (with "+earlier" when it has a record to keep).
    func steps(_ walk: [WalkItem], state: [PhotoRecord], rules: PlanJoin.Rules) -> [String] {
        var plan = PlanJoin(
            walk: AnyIterator(walk.makeIterator()), labels: [""], stateLabels: [""],
            records: { _ in AnyIterator(state.makeIterator()) }, journal: [:], rules: rules)
        var steps: [String] = []
        while let step = plan.next() {
            switch step {
            case .gone(let record, _, _): steps.append("gone " + record.source)
            case .work(let work):
                switch work.item {
                case .kept(let record):
                    steps.append((record.missing ? "missing " : work.foundAgain ? "found again " : "kept ") + record.source)
                case .problem(let problem): steps.append("problem " + problem.source)
                case .photo(let photo, let previous):
                    let earlier = work.earlier.map { $0.missing ? " +earlier missing" : " +earlier" } ?? ""
                    steps.append((work.reason ?? (previous == nil ? "new" : "changed")) + " " + photo.source + earlier)
                }
            }
        }
        return steps
    }

    @Test func noPruneKeepsThePhotosNotFoundMarkedMissingAndFindsThemAgain() {
        let failed = join.record("", 0, "c.jpg", status: .error)
        let state = [join.record("", 0, "a.jpg"), join.record("", 0, "b.jpg"), failed, join.record("", 0, "d.jpg", status: .noFace)]
        var rules = PlanJoin.Rules()
        #expect(steps([join.photo("", 0, "a.jpg")], state: state, rules: rules) == ["kept a.jpg", "gone b.jpg", "gone c.jpg", "gone d.jpg"])
        rules.keepMissing = true
        // A failure names no crop: it goes as before.
        #expect(steps([join.photo("", 0, "a.jpg")], state: state, rules: rules) == ["kept a.jpg", "missing b.jpg", "gone c.jpg", "missing d.jpg"])
        // Marked missing by an earlier run: found again, the mark goes (kept, or hashed when its time changed).
        var missing = state[1]
        missing.missing = true
        let walk = [join.photo("", 0, "a.jpg"), join.photo("", 0, "b.jpg")]
        #expect(steps(walk, state: [state[0], missing], rules: rules) == ["kept a.jpg", "found again b.jpg"])
        #expect(steps([join.photo("", 0, "b.jpg", modified: 2)], state: [missing], rules: rules) == ["changed b.jpg +earlier"])
        // Made with other settings, a record cannot stand for the new ones: gone as before.
        rules.stateCurrent = false
        #expect(steps([join.photo("", 0, "a.jpg")], state: state, rules: rules) == ["new a.jpg", "gone b.jpg", "gone c.jpg", "gone d.jpg"])
    }

    /// A missing record stands where its input is now; one of an input not given now goes
    /// (it would come after every input's: out of manifest order).
    @Test func missingRecordsTakeTheirInputsPlace() {
        let state = [join.record("x", 0, "1.jpg"), join.record("y", 1, "1.jpg"), join.record("y", 1, "2.jpg"), join.record("z", 2, "1.jpg")]
        var rules = PlanJoin.Rules()
        rules.keepMissing = true
        var plan = PlanJoin(
            walk: AnyIterator([join.photo("x", 1, "1.jpg")].makeIterator()), labels: ["y", "x"], stateLabels: ["x", "y", "z"],
            records: { label in AnyIterator(state.filter { $0.label == label }.makeIterator()) }, journal: [:], rules: rules)
        var steps: [String] = []
        while let step = plan.next() {
            switch step {
            case .gone(let record, _, _): steps.append("gone \(record.label)/\(record.source)")
            case .work(let work):
                guard case .kept(let record) = work.item else { continue }
                steps.append("\(record.missing ? "missing" : "kept") \(record.label)/\(record.source) \(record.input)")
            }
        }
        #expect(steps == ["missing y/1.jpg 0", "missing y/2.jpg 0", "kept x/1.jpg 0", "gone z/1.jpg"])
    }

    @Test func overwriteKeepsTheRecordToStandInForAPhotoItCannotRead() {
        var rules = PlanJoin.Rules()
        rules.overwrite = true
        let state = [join.record("", 0, "a.jpg")]
        #expect(steps([join.photo("", 0, "a.jpg")], state: state, rules: rules) == ["overwrite a.jpg +earlier"])
        rules.stateCurrent = false
        #expect(steps([join.photo("", 0, "a.jpg")], state: state, rules: rules) == ["new a.jpg"])
    }

    @Test func theGuardCountsOnlyPhotosNewlyMissingWithNoPrune() {
        var missing = (0..<6).map { join.record("", 0, "m\($0).jpg") }
        for index in missing.indices { missing[index].missing = true }
        let state = [join.record("", 0, "a.jpg"), join.record("", 0, "b.jpg")] + missing
        func tally(keepsMissing: Bool) -> RemovalGuard.Tally {
            var plan = PlanJoin(
                walk: AnyIterator([join.photo("", 0, "a.jpg")].makeIterator()), labels: [""], stateLabels: [""],
                records: { _ in AnyIterator(state.makeIterator()) }, journal: [:], rules: PlanJoin.Rules())
            return RemovalGuard.tally(&plan, labels: [""], keepsMissing: keepsMissing)
        }
        // A plain run removes the 6 missing too: refused. --no-prune marks b alone.
        #expect(tally(keepsMissing: false).removed == 7 && tally(keepsMissing: false).refused)
        #expect(tally(keepsMissing: true) == RemovalGuard.Tally(held: 8, removed: 1, folders: [.init(label: "", path: ""): 1]))
        #expect(RemovalGuard.message(tally(keepsMissing: false), inputs: ["/m/a"], keepsMissing: true).hasPrefix(
            "this run would mark 7 of the dataset's 8 crops missing, those of the photos not found now (more than half of them)."))
    }

    @Test(arguments: [
        ("trip/IMG_1.jpg.face0.jpg", true), ("a.heic.face12.png", true), ("x.jpg.upperbody1.webp", true),
        ("cat.jpg.catface0.jpg", true), ("clip.mp4.t000001.500.face0.jpg", true), ("train/a.jpg.body3.jpg", true),
        ("contact-sheet.jpg", false), ("a.jpg.face.jpg", false), ("a.jpg.face0.gif", false), ("face0.jpg", false),
        ("a.jpg.faces0.jpg", false), ("clip.mov", false), ("README.md", false),
    ])
    func cropNames(name: String, isCrop: Bool) {
        #expect(UnnamedCrops.isCropName(name) == isCrop)
    }
}
