import Foundation
import FaceCropCore
import FaceCropDetect
import FaceCropCurate
import FaceCropVideo
import FaceCropPick

public enum OptionTable {
    public static let usage = "Usage: facecrop <photos>... -o <dir> [options]"

    package static let all: [OptionSpec<Options>] = [
        .value(["-o", "--output"], "DIR", "Folder for crops, manifest.jsonl and stats.json (created if missing).") {
            $0.output = $1
        },
        .value(["--size"], "N", "Side of each square crop in pixels (default 256).") {
            $0.size = try OptionValue.int($1, "--size", 16...8192)
        },
        .value(["--margin"], "F", "Context added on every side of a face, as a fraction of its side (default 0.4; not with --align arcface or ffhq, whose templates frame the face).") {
            $0.margin = try OptionValue.double($1, "--margin", 0...4)
        },
        .value(["--faces"], "all|largest", "Crop every face, or only the largest of each photo (default all).") {
            $0.faces = try OptionValue.choice($1, "--faces")
        },
        .value(["--min-face"], "PX", "Skip faces smaller than this, in pixels of the photo (default 48).") {
            $0.minFace = try OptionValue.int($1, "--min-face", 1...100_000)
        },
        .value(["--pad"], "inside|edge|black|reflect", "Where the margin runs past the photo: inside (default) keeps the square inside the photo, shrunk where the photo is smaller (less margin, recorded as margin_used; --align arcface|ffhq fill as edge); edge, black or reflect fill past the edge with its edge pixels, black, or the photo mirrored (blurred with --align ffhq, as FFHQ does).") {
            $0.pad = try OptionValue.choice($1, "--pad")
        },
        .value(["--format"], "jpg|png|webp", "Crop file format (default jpg).") {
            $0.format = try OptionValue.choice($1, "--format")
        },
        .value(["--quality"], "Q", "JPEG/WebP quality 1-100 (default 90).") {
            $0.quality = try OptionValue.int($1, "--quality", 1...100)
        },
        .value(["--cascade"], "PATH", "OpenCV cascade XML (default: Debian's haarcascade_frontalface_alt2.xml).") {
            $0.cascade = $1
        },
        .value(["--detector"], "cascade|haar|yunet|centerface", "Face detector: several Debian cascades with eye and cross-checks (default), one cascade alone (--cascade), a YuNet ONNX model (--model), or the CenterFace ONNX model (--model; the best faces).") {
            $0.detector = try OptionValue.choice($1, "--detector")
        },
        .value(["--model"], "FILE", "Face detection model (.onnx) for --detector yunet or centerface (default: $FACECROP_MODEL for yunet, $FACECROP_CENTERFACE_MODEL for centerface, then PREFIX/share/facecrop/, then ./models/).") {
            $0.model = $1
        },
        .value(["--min-score"], "F", "Keep faces scoring at least F, 0-1 (default 0.55 for cascade, 0.8 for yunet, 0.56 for centerface, calibrated on a WIDER development set); higher is surer.") {
            $0.minScore = try OptionValue.double($1, "--min-score", 0...1)
        },
        .value(["--target"], "face|upperbody|body|catface", "What to crop: faces (default), upper bodies, whole people (HOG) or cat faces (three cat face cascades voting).") {
            $0.target = try OptionValue.choice($1, "--target")
        },
        .flag(["--no-tagged-faces"], "Give no crop to a face tagged in the photo's XMP (digiKam, Lightroom, Picasa...) that the detector missed (default: it gets one, \"found_by\": \"tag\"); tags still name the faces found.") { $0.taggedFaces = false },
        .flag(["--no-turned"], "Take every face as upright in the photo: no search for faces stored sideways or upside down (\"turned\" in the manifest) or for heads rolled 45 degrees (every detector), and --align level turns up to 45 degrees, not 60. For a library known to be upright.") { $0.turned = false },
        .flag(["--person-only"], "Crop only faces placed on a person the HOG people detector finds (also past the photo's edges) or portrait-sized (1/8 of the shorter side); photos with neither get status no_person.") { $0.personOnly = true },
        .value(["--align"], "none|level|arcface|ffhq", "Frame and turn face crops: none (default); level: turn the crop so the eyes are level (also bare --align); arcface: ArcFace's 112 px five-point template scaled to --size; ffhq: NVlabs' FFHQ square. --margin does not apply to arcface and ffhq: the template decides the framing.") {
            $0.align = try alignMode($1)
        }.valueOptional(meaning: "level"),
        .value(["--min-sharpness"], "F", "Drop faces whose sharpness (variance of the Laplacian at 96 px) is below F (default 0: keep all).") {
            $0.minSharpness = try OptionValue.double($1, "--min-sharpness", 0...1_000_000)
        },
        .value(["--min-face-quality"], "Q", "Leave out faces whose face_quality (0-1, the manifest's quality score; see docs/quality.md) is below Q: status low_quality, no crop (default 0: keep all).") {
            $0.minFaceQuality = try OptionValue.double($1, "--min-face-quality", 0...1)
        },
        .value(["--max-yaw"], "DEG", "Leave out faces turned more than DEG degrees left or right (the manifest's pose.yaw): status low_quality, no crop (default 180: keep all).") {
            $0.maxYaw = try OptionValue.double($1, "--max-yaw", 0...180)
        },
        .value(["--eyes"], "any|open", "open: leave out faces whose eyes are closed (the manifest's quality_reasons hold eyes_closed): status low_quality, no crop (default any: keep all). Needs the face mesh (scripts/fetch-face-mesh-model); a face without it, or whose eyes are under 12 px apart in the detection decode, is kept.") {
            $0.eyes = try OptionValue.choice($1, "--eyes")
        },
        .value(["--min-neighbors"], "N", "Raw detections needed to keep a face; higher finds fewer, surer faces (default 4).") {
            $0.minNeighbors = try OptionValue.int($1, "--min-neighbors", 1...100)
        },
        .value(["--detect-size"], "PX", "Longest side photos are shrunk to for detection (default 1024; with --detector yunet 640, or more, up to 1280, so that a --min-face face is still 20 px; with --detector centerface 1024, or more, up to 1280, so that it is still 16 px).") {
            $0.detectSize = try OptionValue.int($1, "--detect-size", 64...16384)
        },
        .value(["-j", "--jobs"], "N", "Photos processed at once (default: number of cores).") {
            $0.jobs = try OptionValue.int($1, "--jobs", 1...256)
        },
        .value(["--max-pixels"], "N", "Refuse photos with more pixels than this, before decoding (default 200000000).") {
            $0.maxPixels = try OptionValue.int($1, "--max-pixels", 1...Int(Int32.max) * 16)
        },
        .value(["--include"], "GLOB", "Only photos matching GLOB (repeatable; a GLOB with '/' matches the relative path, else the name).") {
            $0.include.append($1)
        }.repeated(),
        .value(["--exclude"], "GLOB", "Skip photos and folders matching GLOB (repeatable).") {
            $0.exclude.append($1)
        }.repeated(),
        .flag(["--library-edits"], "Take the edited version of a photo instead of its original where there is one: an Apple Photos library's render, an iPhone's IMG_E1234 edit, a Google Takeout -edited copy (default: the original; the edit is skipped).") {
            $0.libraryEdits = true
        },
        .flag(["--library-derivatives"], "In an Apple Photos library kept with \"Optimize Mac Storage\", read the largest derivative (a smaller copy Photos keeps) of each photo whose original is in iCloud (default: count them and report them once).") {
            $0.libraryDerivatives = true
        },
        .value(["--since"], "DATE", "Only photos taken on or after DATE (YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS]), by their capture time (EXIF, else a Takeout sidecar) as the clock read where they were taken; photos with no capture time are left out.") {
            guard let bound = DateRange.bound($1, end: false) else { throw FaceCropError.usage("'--since' wants a date like 2024-05-01 or 2024-05-01T08:30, not '\($1)'") }
            $0.since = bound
        },
        .value(["--until"], "DATE", "Only photos taken on or before DATE (a date alone includes its whole day); as --since, photos with no capture time are left out.") {
            guard let bound = DateRange.bound($1, end: true) else { throw FaceCropError.usage("'--until' wants a date like 2024-12-31 or 2024-12-31T18:00, not '\($1)'") }
            $0.until = bound
        },
        .flag(["--overwrite"], "Process every photo again, even those unchanged since the last run (a photo or video it cannot read keeps its crops and lines, as without it).") { $0.overwrite = true },
        .flag(["--no-prune"], "Keep the crops and manifest lines of photos not found now, marked missing (default: remove them).") { $0.prune = false },
        .flag(["--allow-removals"], "Remove the crops of photos that are gone even when that is more than half of the dataset's crops, or every crop of an input folder that is now empty (default: such a run stops before changing anything, exit 75). Removed crops cannot be brought back (with --no-prune they are kept, marked missing).") {
            $0.allowRemovals = true
        },
        .value(["--rejections"], "FILE", "Faces rejected by a person, one '<photo sha256> <x>,<y>,<w>,<h>' a line (a video's face: then 't=<seconds>', and its whole track is rejected): no crop, status rejected (default: <output>/rejections.txt).") {
            $0.rejections = $1
        },
        .value(["--people-file"], "FILE", "Names and corrections of people, one statement a line ('alice = <photo sha256> <x>,<y>,<w>,<h>' names that face's person; 'alice: FACE', 'not alice: FACE', 'ignore = FACE'), applied to every grouping (default: <output>/people.txt).") {
            $0.peopleFile = $1
        },
        .flag(["--no-record-deletions"], "Make deleted crops again (default: a crop deleted since the last run is recorded as a rejection).") {
            $0.recordDeletions = false
        },
        .value(["--dedup"], "N", "Keep one face of each group of near-duplicates (crops' perceptual hashes at most N bits apart, default \(Dedup.defaultThreshold); 2N for faces at the same place in photos at most N apart): the sharpest, then largest; the others get status duplicate.") {
            $0.dedup = $1.isEmpty ? Dedup.defaultThreshold : try OptionValue.int($1, "--dedup", 0...32)
        }.valueOptional(meaning: ""),
        .value(["--split"], "NAME=W,...", "Put each photo's crops in <output>/<NAME>/, chosen by its content hash with these integer weights (e.g. train=80,val=10,test=10).") {
            switch SplitSpec.parse($1) {
            case .success(let spec): $0.split = spec
            case .failure(let error): throw FaceCropError.usage("'--split': \(error.reason)")
            }
        },
        .flag(["--people"], "Group faces into people: a dlib face descriptor per crop (embeddings.npy), then each face's person (person-0001, ..., or null) in the manifest; ids stay when photos are added or removed.") {
            $0.people = true
        },
        .value(["--split-by"], "person", "With --split and --people: put every person's crops in one split (no identity in two splits); faces of no person are split by photo.") {
            guard $1 == "person" else { throw FaceCropError.usage("'--split-by' must be 'person', not '\($1)'") }
            $0.splitByPerson = true
        },
        .value(["--keep-person"], "ID", "With --people: keep only this person's crops (repeatable); other faces get status other_person. Not --person-only, which keeps photos with people.") {
            $0.keepPerson.append($1)
        }.repeated(),
        .flag(["--check"], "Process nothing; exit 0 if the output is up to date, 1 (listing what differs) if not.") { $0.check = true },
        .flag(["--dry-run"], "Process nothing; list what a run would process and remove.") { $0.dryRun = true },
        .value(["--shard"], "K/N", "Process only shard K of N (0 <= K < N, by a stable hash of each path); K may be 'auto' (SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX).") {
            $0.shard = try shard($1)
        },
        .value(["--clip"], "PATH", "Also write a clip of all crops in manifest order, each face in an alpha mask (.mov: ProRes 4444, .webm: VP9).") {
            $0.clip = $1
        },
        .value(["--clip-per"], "dataset|source", "One clip for the dataset (--clip PATH), or one per source photo next to its crops (default dataset).") {
            $0.clipPer = try OptionValue.choice($1, "--clip-per")
        },
        .value(["--clip-codec"], "prores|hevc|vp9", "Clip codec, all with alpha (default: from --clip's extension, else prores; hevc needs ffmpeg >= 7.1).") {
            $0.clipCodec = try OptionValue.choice($1, "--clip-codec")
        }.forClips(),
        .value(["--clip-fps"], "N", "Clip frame rate (default 25).") {
            $0.clipFPS = try OptionValue.int($1, "--clip-fps", 1...240)
        }.forClips(),
        .value(["--clip-size"], "N", "Side of the clip's frames in pixels, even (default: --size, rounded down to even).") {
            let side = try OptionValue.int($1, "--clip-size", 16...4096)
            guard side % 2 == 0 else { throw FaceCropError.usage("'--clip-size' must be even, not '\($1)'") }
            $0.clipSize = side
        }.forClips(),
        .value(["--clip-hold"], "N", "Frames each crop is shown for (default 1).") {
            $0.clipHold = try OptionValue.int($1, "--clip-hold", 1...1000)
        }.forClips(),
        .value(["--clip-mask"], "oval|rect|none", "Opaque part of each frame: an oval around the face box, the box, or all (default oval).") {
            $0.clipMask = try OptionValue.choice($1, "--clip-mask")
        }.forClips(),
        .value(["--ffmpeg"], "PATH", "ffmpeg for clips and videos; ffprobe is taken from the same folder (default: FACECROP_FFMPEG, else ffmpeg on PATH).") {
            $0.ffmpeg = $1
        },
        .flag(["--no-videos"], "Skip video files (default: \(VideoFiles.extensionList) are read through ffmpeg).") { $0.videos = false },
        .value(["--video-fps"], "F", "Frames sampled per second of video, at their exact presentation times (default 1).") {
            $0.videoFPS = try OptionValue.double($1, "--video-fps", 0.001...120)
        },
        .flag(["--video-keyframes"], "Sample only a video's keyframes (fast: the frames between are not decoded), at most --video-fps a second.") {
            $0.videoKeyframes = true
        },
        .value(["--video-scenes"], "T", "Also sample the first frame of each new shot of a video: a frame whose ffmpeg scene score (0...1, its change from the frame before) is above T (default \(VideoSampling.defaultSceneThreshold)), at most one every \(VideoSampling.sceneGap) s; on top of --video-fps.") {
            $0.videoScenes = $1.isEmpty ? VideoSampling.defaultSceneThreshold : try OptionValue.double($1, "--video-scenes", 0.01...1)
        }.valueOptional(meaning: ""),
        .value(["--per-track"], "N", "Keep the N best crops of each face track of a video (by face_quality; default: all).") {
            $0.perTrack = try OptionValue.int($1, "--per-track", 1...100_000)
        },
        .value(["--max-video-seconds"], "S", "Refuse videos longer than S seconds (an error line; default 3600).") {
            $0.maxVideoSeconds = try OptionValue.double($1, "--max-video-seconds", 0.1...1_000_000)
        },
        .flag(["--live-photo-videos"], "Read the .MOV of a Live Photo too (default: a .mov beside a .heic/.jpg still of the same name is skipped).") {
            $0.livePhotoVideos = true
        },
        .flag(["--follow-links"], "Follow symbolic links (default: skip them).") { $0.followLinks = true },
        .flag(["--wait-lock"], "When another facecrop run is writing the same output and shard, wait for it instead of stopping (exit 73).") {
            $0.waitLock = true
        },
        .flag(["--no-contact-sheet"], "Do not write contact-sheet.png (a grid of every crop, numbered; one per 1000 crops).") {
            $0.contactSheet = false
        },
        .flag(["--no-report"], "Do not write report.html (summary, failures, photos without a face, crops).") {
            $0.report = false
        },
        .flag(["-q", "--quiet"], "No progress bar and no summary line; errors are still printed.") { $0.quiet = true },
        .flag(["--json"], "Print the summary as one JSON object on stdout.") { $0.json = true },
        .value(["--config"], "FILE", "Read options from FILE ('name = value' lines or a JSON object, names without '--'); the command line overrides it.") {
            $0.configs.append($1)
        }.repeated().onlyOnCommandLine(),
        .flag(["-h", "--help"], "Show this help.") { $0.showHelp = true }.onlyOnCommandLine(),
        .flag(["--version"], "Show the version.") { $0.showVersion = true }.onlyOnCommandLine(),
        .flag(["--man"], "Print the manual page (roff) on stdout.") { $0.showManual = true }.onlyOnCommandLine(),
        .value(["--completions"], "bash|zsh", "Print the shell completion script for bash or zsh on stdout.") {
            $0.completions = try OptionValue.choice($1, "--completions")
        }.onlyOnCommandLine(),
    ]
}
