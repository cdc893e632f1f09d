/// The settings that decide what a photo's crops look like.
public struct CropSettings: Sendable, Equatable {
    public var size: Int
    public var margin: Double
    public var faces: FaceSelection
    public var minFace: Int
    public var pad: PadMode
    public var format: OutputFormat
    public var quality: Int
    public var detectSize: Int
    public var minNeighbors: Int
    public var maxPixels: Int
    public var detector: DetectorKind
    public var minScore: Double
    public var target: Target
    public var personOnly: Bool
    public var align: Bool
    public var minSharpness: Double

    public init(_ options: Options) {
        size = options.size
        margin = options.margin
        faces = options.faces
        minFace = options.minFace
        pad = options.pad
        format = options.format
        quality = options.quality
        detectSize = options.effectiveDetectSize
        minNeighbors = options.minNeighbors
        maxPixels = options.maxPixels
        detector = options.detector
        minScore = options.minScore ?? DetectorConfig.defaultMinScore(options.detector)
        target = options.target
        personOnly = options.personOnly
        align = options.align
        minSharpness = options.minSharpness
    }
}
