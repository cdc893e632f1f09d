import FaceCropCore

/// What the grouping's quality floor (`PeopleRule.minCoreQuality`) reads:
/// how well a face's pixels show it, from the quality record's raw measures
/// with edges of its own. Not `face_quality`, whose factors are added and
/// tuned for ranking crops (`QualityScore.version`): each change moved the
/// floor (when version 2 remade the factors, 4 of 32 crowd strangers of a
/// held-out set formed two groups under the default detector, none with
/// version 1). These edges are those the floor was calibrated with (score
/// version 2's, and version 3's face presence), kept here so that the
/// floor's meaning stays when the score's moves. Size has its own rule (`minCoreSide`), and closed eyes do not
/// hide who a face is, so neither is in it.
package enum QualityFloor {
    typealias Edge = QualityScore.Edge
    static let softness = Edge(fine: 1.0, wrong: 1.3)
    static let darkMean = Edge(fine: 0.25, wrong: 0.22)
    static let darkClipped = Edge(fine: 0.1, wrong: 0.3)
    static let brightMean = Edge(fine: 0.75, wrong: 0.85)
    static let brightClipped = Edge(fine: 0.03, wrong: 0.1)
    static let blocking = Edge(fine: 1.5, wrong: 2.0)
    static let jpegQuality = Edge(fine: 50, wrong: 25)
    static let yaw = Edge(fine: 30, wrong: 45)
    static let outside = Edge(fine: 0.02, wrong: 0.15)
    static let facePresence = Edge(fine: 0.5, wrong: 0.2)

    /// 0...1: the product of the measures' factors (1 while nothing is wrong,
    /// 0.75 at each wrong point), to 4 decimals as `face_quality` is written.
    package static func value(_ q: FaceQuality) -> Double {
        let factors = [
            softness.factor(q.softness),
            darkMean.factor(q.mean) * darkClipped.factor(q.dark),
            brightMean.factor(q.mean) * brightClipped.factor(q.bright),
            blocking.factor(q.blocks) * jpegQuality.factor(Double(q.jpegQuality ?? 100)),
            yaw.factor(abs(q.pose?.yaw ?? 0)),
            outside.factor(q.outside),
            q.facePresence.map(facePresence.factor) ?? 1,
        ]
        return (factors.reduce(1, *) * 10_000).rounded() / 10_000
    }
}
