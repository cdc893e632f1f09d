/// `--person-only`: which finds count as a person's.
///
/// A face counts when its centre lies in the top third of a person the HOG
/// detector found and it is at most half that person's width across, or
/// when it is portrait-sized: its side at least 1/8 of the photo's shorter
/// side. A standing person is about 7-8 heads tall, so a face that large
/// leaves no room for the whole body the HOG detector needs: selfies,
/// portraits and head-and-shoulders shots are kept on the face alone.
/// Upper bodies count inside a person or when at least 1/3 of the shorter
/// side; whole bodies are people already; cat faces need a person too.
import FaceCropCore

package enum PersonRule {
    package static func counts(_ box: PixelRect, target: Target, people: [PixelRect], width: Int, height: Int) -> Bool {
        let shorter = Double(min(width, height))
        let side = Double(max(box.width, box.height))
        let cx = Double(box.x) + Double(box.width) / 2
        let cy = Double(box.y) + Double(box.height) / 2
        switch target {
        case .face, .catface:
            if target == .face && side >= shorter / 8 { return true }
            return people.contains { person in
                cx >= Double(person.x) && cx <= Double(person.x + person.width) && cy >= Double(person.y)
                    && cy <= Double(person.y) + Double(person.height) / 3 && Double(box.width) <= Double(person.width) / 2
            }
        case .upperbody:
            if side >= shorter / 3 { return true }
            return people.contains { person in
                cx >= Double(person.x) && cx <= Double(person.x + person.width) && cy >= Double(person.y)
                    && cy <= Double(person.y + person.height)
            }
        case .body:
            return true
        }
    }
}
