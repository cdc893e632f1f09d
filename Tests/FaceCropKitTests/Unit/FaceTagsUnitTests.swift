import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropPhoto


/// FaceTags' geometry and the walk's sidecar pairing, without photos.
struct FaceTagsUnitTests {
    /// Each orientation's turn, checked on a stored image's corners as EXIF
    /// defines them (the stored top-left pixel shown at: 1 top-left, 2
    /// top-right, 3 bottom-right, 4 bottom-left, 5 top-left, 6 top-right,
    /// 7 bottom-right, 8 bottom-left), and undone by `unturn`.
    @Test(arguments: [
        (1, (0.0, 0.0)), (2, (1.0, 0.0)), (3, (1.0, 1.0)), (4, (0.0, 1.0)),
        (5, (0.0, 0.0)), (6, (1.0, 0.0)), (7, (1.0, 1.0)), (8, (0.0, 1.0)),
    ])
    func orientationTurnsTheStoredTopLeft(orientation: Int, shown: (Double, Double)) {
        let turned = FaceTags.turn(0, 0, orientation: orientation)
        #expect(turned == shown)
        let point = FaceTags.turn(0.2, 0.7, orientation: orientation)
        let back = FaceTags.unturn(point.0, point.1, orientation: orientation)
        #expect(abs(back.0 - 0.2) < 1e-12 && abs(back.1 - 0.7) < 1e-12)
    }

    /// Orientation 6 turns the stored top row into the shown right column.
    @Test func orientationSixTurnsTheTopRowRight() {
        #expect(FaceTags.turn(1, 0, orientation: 6) == (1, 1))
        let frame = FaceTags.Frame(storedWidth: 400, storedHeight: 300, orientation: 6)
        #expect(frame.width == 300 && frame.height == 400)
        // The stored area u 0.1...0.3, v 0.2...0.4 is shown at x 0.6...0.8, y 0.1...0.3.
        let box = FaceTags.pixels((0.1, 0.2, 0.2, 0.2), frame: frame, upright: false)
        #expect(box == PixelRect(x: 180, y: 40, width: 60, height: 80))
    }

    @Test func appliedToDimensionsWithTheUprightShapeMeansUpright() {
        let frame = FaceTags.Frame(storedWidth: 400, storedHeight: 300, orientation: 6)
        var regions = XMPRegions()
        regions.appliedWidth = "400"
        regions.appliedHeight = "300"
        #expect(!FaceTags.appliedIsUpright(regions, frame: frame))
        regions.appliedWidth = "1500"
        regions.appliedHeight = "2000"
        #expect(FaceTags.appliedIsUpright(regions, frame: frame))
        // An upright photo, or a square one, cannot tell.
        #expect(!FaceTags.appliedIsUpright(regions, frame: .init(storedWidth: 400, storedHeight: 300, orientation: 1)))
        #expect(!FaceTags.appliedIsUpright(regions, frame: .init(storedWidth: 300, storedHeight: 300, orientation: 6)))
    }

    @Test func regionsBecomeTagsOrWarnings() {
        let frame = FaceTags.Frame(storedWidth: 1000, storedHeight: 500, orientation: 1)
        var regions = XMPRegions()
        regions.regions = [
            .init(schema: .mwg, position: 1, name: " Anna (Mom) ", type: "Face", x: "0.5", y: "0.5", w: "0.2", h: "0.4", unit: "normalized"),
            .init(schema: .mwg, position: 2, name: "Rex", type: "Pet", x: "0.5", y: "0.5", w: "0.2", h: "0.4"),
            .init(schema: .mwg, position: 3, name: "Unknown", x: "0.1", y: "0.2", w: "0.1", h: "0.2"),
            .init(schema: .mwg, position: 4, name: "Far", x: "1.5", y: "0.5", w: "0.1", h: "0.1"),
            .init(schema: .mwg, position: 5, name: "Px", x: "10", y: "10", w: "5", h: "5", unit: "pixel"),
            .init(schema: .mwg, position: 6, name: "Nan", x: "a", y: "0.5", w: "0.1", h: "0.1"),
            .init(schema: .microsoft, position: 1, name: "Ignored: MWG is there", rectangle: "0.1, 0.1, 0.2, 0.2"),
        ]
        let read = FaceTags.tags(in: regions, frame: frame, file: "IMG.jpg.xmp")
        #expect(read.tags == [
            FaceTag(name: "Anna (Mom)", box: PixelRect(x: 400, y: 150, width: 200, height: 200), file: "IMG.jpg.xmp"),
            FaceTag(name: nil, box: PixelRect(x: 50, y: 50, width: 100, height: 100), file: "IMG.jpg.xmp"),
        ])
        #expect(read.warnings == [
            "IMG.jpg.xmp: mwg-rs region 4: lies outside the photo; skipped",
            "IMG.jpg.xmp: mwg-rs region 5: area unit 'pixel' (only normalized is read); skipped",
            "IMG.jpg.xmp: mwg-rs region 6: area is not four numbers; skipped",
        ])
        // Without MWG regions, Microsoft's count: top-left rectangles.
        regions.regions = [.init(schema: .microsoft, position: 1, name: "李小龙", rectangle: "0.1, 0.2, 0.3, 0.4")]
        #expect(FaceTags.tags(in: regions, frame: frame, file: "f").tags.map(\.box) == [PixelRect(x: 100, y: 100, width: 300, height: 200)])
    }

    @Test func sidecarsPairWithTheirPhotos() {
        let photos = ["IMG_1.jpg", "IMG_2.jpg", "IMG_2.heic", "IMG_3.JPG", "other.png"]
        let xmps = ["IMG_1.jpg.xmp", "IMG_1.xmp", "IMG_2.xmp", "IMG_3.JPG.XMP", "lonely.xmp"]
        #expect(Libraries.xmpSidecars(photos: photos, xmps: xmps) == [
            "IMG_1.jpg": "IMG_1.jpg.xmp", "IMG_2.jpg": "IMG_2.xmp", "IMG_2.heic": "IMG_2.xmp", "IMG_3.JPG": "IMG_3.JPG.XMP",
        ])
        #expect(Libraries.isXMPName("a.XmP") && Libraries.isXMPName("IMG.jpg.xmp"))
        #expect(!Libraries.isXMPName(".xmp") && !Libraries.isXMPName("a.xml") && !Libraries.isXMPName("xmp"))
    }
}
