import Foundation
import Testing
import FaceCropCore
import FaceCropPhoto

extension FaceTagTests {
    /// Tags drawn by hand are looser than the detector's boxes: two-people.jpg
    /// tagged at 1.5 times each face the cascade finds (IoU 0.44) gives one
    /// crop per face, each with its own tag's name, and the summary counts
    /// both tags found.
    @Test func aLooselyTaggedFaceIsOneFaceWithItsTag() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        // The cascade's boxes on the 1024 x 512 photo: Collins [657, 90, 160, 199], Hopper [183, 65, 81, 102].
        // Each tag as (name, centre x, centre y, side w, side h) in pixels, then normalised.
        let collins: (String?, Double, Double, Double, Double) = ("Collins", 737 / 1024, 189.5 / 512, 240 / 1024, 298.5 / 512)
        let hopper: (String?, Double, Double, Double, Double) = ("Hopper", 223.5 / 1024, 116 / 512, 121.5 / 1024, 153 / 512)
        try Self.tag("faces/two-people.jpg", photos.appendingPathComponent("loose.jpg"), Self.mwg([collins, hopper]))
        let output = work.appendingPathComponent("out")
        let result = try run([photos.path, "-o", output.path])
        #expect(result.stderr.contains(", 2 of 2 tagged faces found (100.0 %)"), "\(result.stderr)")
        let crops = try readManifest(output).filter { $0["crop"] != nil }
        #expect(crops.count == 2)
        #expect(crops.allSatisfy { $0["found_by"] == nil })
        var named: [String: Int] = [:]
        for crop in crops { named[crop["tag_name"] as? String ?? ""] = rect(crop["bbox"])?.x }
        #expect(named.count == 2 && named["Collins"].map { $0 > 512 } == true && named["Hopper"].map { $0 < 512 } == true)
    }

    /// The rule on boxes: IoU 0.5, or the face's centre inside the tag with
    /// 80 % of the smaller box inside the other; a neighbour's face beside a
    /// loose tag is not its face.
    @Test(arguments: [
        (PixelRect(x: 100, y: 100, width: 100, height: 100), true),  // the face's own box
        (PixelRect(x: 75, y: 75, width: 150, height: 150), true),  // 1.5 times: IoU 0.44
        (PixelRect(x: 50, y: 50, width: 200, height: 200), true),  // 2 times: IoU 0.25
        (PixelRect(x: 65, y: 65, width: 200, height: 200), true),  // 2 times, drawn off centre by 0.15 of a side
        (PixelRect(x: 25, y: 25, width: 300, height: 300), true),  // 3 times: the face is inside
        (PixelRect(x: -56, y: 50, width: 200, height: 200), false),  // 2 times around a face 1.06 sides to the left
        (PixelRect(x: 160, y: 100, width: 150, height: 150), false),  // the face's centre outside
        (PixelRect(x: 130, y: 130, width: 40, height: 40), true),  // drawn tight, around the face's centre
        (PixelRect(x: 105, y: 105, width: 30, height: 30), false),  // a small tag in the box's corner
    ])
    func tagsMatchFacesByOverlapOrCentreAndCover(tag: PixelRect, matches: Bool) {
        let face = PixelRect(x: 100, y: 100, width: 100, height: 100)
        #expect((TagStage.overlap(tag, face) != nil) == matches)
    }
}
