import Foundation

public enum FaceSelection: String, Sendable, CaseIterable { case all, largest }

/// How a crop that reaches past the photo's edge is made: filled with the
/// edge pixels, black or the photo mirrored; or (`inside`) kept inside the
/// photo, its square shrunk where the photo is smaller than it.
/// `--eyes`: keep every face, or only those whose eyes are open.
public enum EyesMode: String, Sendable, CaseIterable {
    case any, open
}

public enum PadMode: String, Sendable, CaseIterable {
    case edge, black, reflect, inside

    /// Whether the crop's square is kept inside the photo.
    public var keepsInside: Bool { self == .inside }
}

public enum ClipScope: String, Sendable, CaseIterable { case dataset, source }

public enum Shell: String, Sendable, CaseIterable { case bash, zsh }

public enum OutputFormat: String, Sendable, CaseIterable {
    case jpg, png, webp
    package var fileExtension: String { rawValue }
}

/// Everything a run is told on the command line. Defaults are the documented ones.
public struct Options: Sendable, Equatable {
    /// facecrop's version (`--version`, stats.json, the state file).
    public static let version = "0.1.0"

    public var inputs: [String] = []
    public var output: String?
    public var size = 256
    public var margin = 0.4
    public var faces = FaceSelection.all
    public var minFace = 48
    /// `inside` by default: no crop shows a band of copied edge pixels
    /// (docs/manual.md, Crops at the photo's edge).
    public var pad = PadMode.inside
    public var format = OutputFormat.jpg
    public var quality = 90
    public var cascade: String?
    public var detector = DetectorKind.cascade
    public var model: String?
    /// `nil`: the detector's own default (`DetectorConfig.defaultMinScore`).
    public var minScore: Double?
    public var target = Target.face
    public var personOnly = false
    /// `--no-tagged-faces`: face tags the detector missed get no crop.
    public var taggedFaces = true
    /// `--no-turned`: every face taken as upright (`QuarterTurn`).
    public var turned = true
    public var align = AlignMode.none
    public var minSharpness = 0.0
    public var minFaceQuality = 0.0
    public var maxYaw = 180.0
    public var eyes = EyesMode.any
    public var jobs: Int?
    /// nil: the detector's own default (`effectiveDetectSize`, in FaceCropDetect).
    public var detectSize: Int?
    public var minNeighbors = 4
    public var maxPixels = 200_000_000
    public var include: [String] = []
    public var exclude: [String] = []
    public var followLinks = false
    /// `--library-edits`: edited versions instead of originals.
    public var libraryEdits = false
    /// `--library-derivatives`: a Photos library's largest derivative where the original is in iCloud.
    public var libraryDerivatives = false
    /// `--since` / `--until`: capture times kept, as `DateRange` bounds.
    public var since: String?
    public var until: String?
    package var dates: DateRange { DateRange(since: since, until: until) }
    /// Wait for another run's lock on the output instead of exiting 73.
    public var waitLock = false
    public var overwrite = false
    public var prune = true
    /// `--allow-removals`: no removal guard (`RemovalGuard`).
    public var allowRemovals = false
    /// The rejections file (nil: `<output>/rejections.txt`).
    public var rejections: String?
    /// The people file (nil: `<output>/people.txt`).
    public var peopleFile: String?
    /// Whether a deleted crop is recorded as a rejection at the next run.
    public var recordDeletions = true
    /// `--dedup[=N]`: the Hamming distance within which crops are near-duplicates.
    public var dedup: Int?
    public var split: SplitSpec?
    /// `--people`: a face descriptor per crop, faces grouped into people.
    public var people = false
    /// `--split-by person`: each person's crops in one split.
    public var splitByPerson = false
    /// `--keep-person ID`: only these people's crops.
    public var keepPerson: [String] = []
    public var check = false
    public var dryRun = false
    public var shard: Shard?
    public var quiet = false
    public var json = false
    public var clip: String?
    public var clipPer = ClipScope.dataset
    public var clipCodec: ClipCodec?
    public var clipFPS = 25
    public var clipSize: Int?
    public var clipHold = 1
    public var clipMask = ClipMaskShape.oval
    public var ffmpeg: String?
    /// Videos: read (default) or skipped; samples a second; keyframes only;
    /// crops kept per track (nil: all); the longest video read; Live Photo
    /// videos read too.
    public var videos = true
    public var videoFPS = 1.0
    public var videoKeyframes = false
    /// `--video-scenes`: the scene score that also takes a sample (nil: off).
    public var videoScenes: Double?
    public var perTrack: Int?
    public var maxVideoSeconds = 3600.0
    public var livePhotoVideos = false
    public var contactSheet = true
    public var report = true
    /// `--config` files, applied before the command line.
    public var configs: [String] = []
    public var showHelp = false
    public var showVersion = false
    public var showManual = false
    public var completions: Shell?

    public init() {}

    /// Whether the run writes clips (`--clip PATH` or `--clip-per source`).
    public var wantsClips: Bool { clip != nil || clipPer == .source }

    /// `--clip-codec`, else the one `--clip`'s extension implies, else ProRes.
    public var effectiveClipCodec: ClipCodec { clipCodec ?? clip.flatMap(ClipCodec.implied) ?? .prores }

    /// `--clip-size`, else the crop size rounded down to even (4:2:0 video
    /// needs even sides).
    public var effectiveClipSize: Int { clipSize ?? size - size % 2 }

    /// `--jobs`, or the number of active cores.
    public var effectiveJobs: Int { jobs ?? max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

/// Which face detector runs.
public enum DetectorKind: String, Sendable, CaseIterable {
    /// Several Debian cascades with verification (the default).
    case cascade
    /// One cascade alone (`--cascade`, default alt2): the stock detector.
    case haar
    /// A YuNet ONNX model (`--model`, else found by `ModelLocator`) through
    /// ONNX Runtime.
    case yunet
    /// The CenterFace ONNX model (`--model`, else found by `ModelLocator`)
    /// through ONNX Runtime.
    case centerface
    // What facecrop knows of each is declared beside its finder, in
    // FaceCropDetect (`DetectorFacts`, `DetectorKind.facts`).
}

/// What is cropped.
public enum Target: String, Sendable, CaseIterable {
    case face, upperbody, body, catface
}

/// What `--align` does to a face crop.
public enum AlignMode: String, Sendable, CaseIterable {
    /// Cut the face's square as it is.
    case none
    /// Turn the face's square so that the eye line is level (`--margin` framing).
    case level
    /// ArcFace / InsightFace 112 x 112 five-point template, scaled to `--size`.
    case arcface
    /// NVlabs' FFHQ recipe (eyes and mouth decide the square).
    case ffhq

    /// Whether the template, not `--margin`, decides the framing.
    public var isTemplate: Bool { self == .arcface || self == .ffhq }

    /// How stats.json's settings (and so the settings hash) name it: `no` and
    /// `yes` for none and level, as before there were templates, so that a
    /// dataset made then is still up to date.
    package var settingsValue: String {
        switch self {
        case .none: "no"
        case .level: "yes"
        case .arcface, .ffhq: rawValue
        }
    }
}

/// `--shard K/N`: this process takes the photos whose stable path hash is K mod N.
public struct Shard: Sendable, Equatable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// FNV-1a over the label and source path: the same on every machine and run.
    package func owns(label: String, source: String) -> Bool {
        Int(FNV1a.hash64(Photo.key(label: label, source: source).utf8) % UInt64(count)) == index
    }
}

/// A clip's codec (`--clip-codec`): each one an ffmpeg encoder and pixel
/// format that keep the alpha channel, in a container that carries it.
public enum ClipCodec: String, Sendable, CaseIterable {
    /// ProRes 4444 (prores_ks, 10-bit 4:4:4 with 16-bit alpha) in QuickTime .mov.
    case prores
    /// HEVC with an alpha layer (libx265, yuva420p) in .mov; needs ffmpeg >= 7.1
    /// built with x265 >= 4.0.
    case hevc
    /// VP9 with alpha (libvpx-vp9, yuva420p) in WebM.
    case vp9

    package var encoder: String {
        switch self {
        case .prores: "prores_ks"
        case .hevc: "libx265"
        case .vp9: "libvpx-vp9"
        }
    }

    /// The pixel format with an alpha plane the encoder must accept.
    package var pixelFormat: String {
        switch self {
        case .prores: "yuva444p10le"
        case .hevc, .vp9: "yuva420p"
        }
    }

    /// ffmpeg's muxer, also the file extension it goes with.
    package var container: String {
        switch self {
        case .prores, .hevc: "mov"
        case .vp9: "webm"
        }
    }

    package var fileExtension: String { container }

    /// Encoder arguments after `-c:v ENCODER -pix_fmt FORMAT`.
    package var encoderArguments: [String] {
        switch self {
        case .prores: ["-profile:v", "4444"]
        case .hevc: ["-tag:v", "hvc1", "-preset", "fast", "-x265-params", "log-level=error"]
        case .vp9: ["-crf", "30", "-b:v", "0", "-deadline", "good", "-cpu-used", "4"]
        }
    }

    /// Input arguments that select a decoder which keeps the alpha channel
    /// (ffmpeg's own VP9 decoder ignores WebM's alpha track).
    package var decoderArguments: [String] {
        switch self {
        case .vp9: ["-c:v", "libvpx-vp9"]
        case .prores, .hevc: []
        }
    }

    /// The codec a clip file name implies: .mov -> prores, .webm -> vp9.
    package static func implied(by path: String) -> ClipCodec? {
        switch (path as NSString).pathExtension.lowercased() {
        case "mov": .prores
        case "webm": .vp9
        default: nil
        }
    }
}

/// The alpha mask's shape (`--clip-mask`).
public enum ClipMaskShape: String, Sendable, CaseIterable {
    /// An ellipse through the corners of the face box, feathered outside it.
    case oval
    /// The face box itself, feathered outside it.
    case rect
    /// Every pixel opaque.
    case none
}

/// How a warped crop is filled where it reaches past the photo.
package enum WarpFill: Sendable {
    /// The photo's edge pixels repeated.
    case edge
    case black
    /// The photo mirrored at its edge.
    case reflect
    /// Mirrored, then blurred and faded to the median colour (FFHQ's padding).
    case reflectBlurred
}
