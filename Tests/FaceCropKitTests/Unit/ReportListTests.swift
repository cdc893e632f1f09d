import Testing
import FaceCropFinish


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
}
