/// The settings that decide what a photo's crops look like.

public struct CropSettings: Sendable, Equatable {
    public var size: Int
    public var margin: Double
    public var faces: FaceSelection
    public var minFace: Int
    public var pad: PadMode
    public var format: OutputFormat
    public var quality: Int
    /// nil: chosen per photo (`detectSide(longSide:)`, in FaceCropDetect).
    public var detectSize: Int?
    public var minNeighbors: Int
    public var maxPixels: Int
    public var detector: DetectorKind
    public var minScore: Double
    public var target: Target
    public var personOnly: Bool
    public var align: AlignMode
    public var minSharpness: Double
    /// `--min-face-quality`, `--max-yaw`: faces below get status low_quality.
    public var minFaceQuality: Double
    public var maxYaw: Double
    /// `--eyes open`: faces whose eyes are closed get status low_quality.
    public var eyes: EyesMode
    /// `--dedup`'s distance and `--split`: they decide which crops are kept and where.
    public var dedup: Int?
    public var split: SplitSpec?
    /// How videos are sampled and which of their crops are kept.
    public var video: VideoSettings
    /// `--people` (a descriptor per crop) and how its groups curate.
    public var people: Bool
    public var splitByPerson: Bool
    public var keepPerson: [String]
    /// Face tags the detector missed get crops (`--no-tagged-faces`: not).
    public var taggedFaces = true
    /// Faces turned in the photo are found and written upright, and
    /// `--align level` turns up to 60 degrees (`--no-turned`: not).
    public var turned = true

    /// The most `--align level` turns a face (a larger turn is taken for a
    /// wrong eye and the crop is left as it is).
    package var levelLimit: Double { turned ? 60 : 45 }

    /// How a turned crop is filled past the photo's edge: `--pad`, with
    /// `reflect` blurred and faded as FFHQ does under `--align ffhq`.
    package var fill: WarpFill {
        switch pad {
        case .edge, .inside: .edge
        case .black: .black
        case .reflect: align == .ffhq ? .reflectBlurred : .reflect
        }
    }

    /// The settings of `options`, with `minScore` as the minimum detection
    /// score and `detectSize` as the detection size (`CropSettings(options)`,
    /// in FaceCropDetect, passes `--min-score` and `--detect-size` or the
    /// detector's own defaults).
    package init(_ options: Options, minScore: Double, detectSize: Int?) {
        size = options.size
        margin = options.margin
        faces = options.faces
        minFace = options.minFace
        pad = options.pad
        format = options.format
        quality = options.quality
        self.detectSize = detectSize
        minNeighbors = options.minNeighbors
        maxPixels = options.maxPixels
        detector = options.detector
        self.minScore = minScore
        target = options.target
        personOnly = options.personOnly
        align = options.align
        minSharpness = options.minSharpness
        minFaceQuality = options.minFaceQuality
        maxYaw = options.maxYaw
        eyes = options.eyes
        dedup = options.dedup
        split = options.split
        people = options.people
        splitByPerson = options.splitByPerson
        taggedFaces = options.taggedFaces
        turned = options.turned
        keepPerson = options.keepPerson
        video = VideoSettings(
            fps: options.videoFPS, keyframes: options.videoKeyframes, perTrack: options.perTrack,
            maxSeconds: options.maxVideoSeconds, sceneThreshold: options.videoScenes)
    }
}

/// `--video-fps`, `--video-keyframes`, `--per-track`, `--max-video-seconds`,
/// `--video-scenes`.
public struct VideoSettings: Sendable, Equatable {
    public var fps: Double
    public var keyframes: Bool
    public var perTrack: Int?
    public var maxSeconds: Double
    /// `--video-scenes`: the scene score that also takes a sample (nil: off).
    public var sceneThreshold: Double? = nil

    package static let defaults = VideoSettings(fps: 1, keyframes: false, perTrack: nil, maxSeconds: 3600)

    /// As stats.json and the state file record it (only when not the
    /// defaults, so that the settings hash of a photo library is unchanged).
    package var description: String {
        // `scenes=` only when set: the hash of runs made before it stays.
        "fps=\(fps) keyframes=\(keyframes ? "yes" : "no") per_track=\(perTrack.map(String.init) ?? "all") max_seconds=\(maxSeconds)"
            + (sceneThreshold.map { " scenes=\($0)" } ?? "")
    }
}
