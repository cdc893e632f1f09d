import Testing
import FaceCropFinish
import FaceCropCore
import FaceCropCurate
import FaceCropPeople


/// The report's lists of photos hold their first `ReportLists.limit`
/// entries and count the rest, whatever the dataset's size.
struct ReportListTests {
    @Test func aLongListShowsItsStartAndCountsTheRest() {
        var list = ShownList<String>()
        for number in 0..<(ReportLists.limit + 7) { list.add("photo-\(number).jpg") }
        #expect(list.count == ReportLists.limit + 7)
        #expect(list.shown.count == ReportLists.limit)
        #expect(list.shown.last == "photo-\(ReportLists.limit - 1).jpg")
        #expect(!list.wants)
        #expect(list.moreHTML.contains("and 7 more"))
    }

    @Test func aShortListIsShownWhole() {
        var list = ShownList<String>()
        for name in ["a.jpg", "b.jpg"] { list.add(name) }
        #expect(list.shown == ["a.jpg", "b.jpg"])
        #expect(list.moreHTML.isEmpty)
    }

    /// The People page marks a video frame's face with its time; a photo's is not marked.
    @Test func thePeoplePageMarksVideoFaces() {
        let handle = Rejection(sha256: String(repeating: "ab", count: 32), box: PixelRect(x: 1, y: 2, width: 30, height: 30))
        let photo = PeopleListing.Face(
            number: 1, crop: "a.jpg.face0.jpg", photo: "a.jpg", face: 0, handle: handle, sharpness: 1, person: "alice")
        let frame = PeopleListing.Face(
            number: 2, crop: "v.mp4.t000002.000.face0.jpg", photo: "v.mp4", face: 0, handle: handle, sharpness: 1,
            person: "alice", time: 2)
        let html = ReportPeople.page(PeopleListing(faces: [photo, frame], grouped: true), file: nil, output: "/d")
        #expect(html.components(separatedBy: " video\" id=\"face-").count - 1 == 1)
        #expect(html.contains("<span class=\"video\">▶ 2.000 s</span>"))
        #expect(Report.videoTime(75.5) == "75.500 s (1:15.500)")
    }
}
