import CFaceDetect

extension FaceLandmarks {
    /// YuNet's five points, as it gives them: the person's right eye, left
    /// eye, nose tip, right and left mouth corner. In an upright face that is
    /// image-left first, the order of `Name` and of ArcFace's template; they
    /// are kept in YuNet's order (not sorted by x), so that a turned face
    /// keeps its eyes and mouth corners paired the right way round.
    init(yunet face: CFaceDetect_YuNetFace) {
        let l = face.landmarks
        let pairs = [(l.0, l.1), (l.2, l.3), (l.4, l.5), (l.6, l.7), (l.8, l.9)]
        self.init(pairs.map { Point2D(Double($0.0), Double($0.1)) })
    }
}

extension FaceLandmarks {
    /// CenterFace's five points, as it gives them (trained on WIDER FACE's
    /// RetinaFace annotation): for an upright face, the eye on the image's
    /// left, the other eye, nose tip, then the mouth corner on the image's
    /// left and the other one: already `Name`'s order (checked on
    /// Fixtures/faces/portrait.jpg by DetectionTests). Kept in that order,
    /// not sorted by x, as YuNet's are.
    init(centerFace face: CFaceDetect_YuNetFace) {
        let l = face.landmarks
        let pairs = [(l.0, l.1), (l.2, l.3), (l.4, l.5), (l.6, l.7), (l.8, l.9)]
        self.init(pairs.map { Point2D(Double($0.0), Double($0.1)) })
    }
}
