/// pick.json: what was asked, and for each crop written why it was chosen.
import FaceCropCore

package enum PickReport {
    package static let fileName = "pick.json"

    /// What pick.json says about the request.
    package struct Request {
        package var dataset: String
        package var mode: String
        package var person: String?
        package var count: Int
        package var size: Int
        package var margin: Double
        package var pad: String
        package var maxUpscale: Double
        package var caption: String
        package var scoreFrom: String
        package var sheets: [String]
    }

    package static func json(_ request: Request, _ written: [PickWriter.Written], leftOut: [PickLeftOut] = []) -> JSON {
        let cut = written.filter(\.cut).count
        return .object([
            ("dataset", .string(request.dataset)),
            ("mode", .string(request.mode)),
            ("person", request.person.map(JSON.string) ?? .null),
            ("count", .int(request.count)),
            ("size", .int(request.size)),
            ("margin", .double(request.margin)),
            ("pad", .string(request.pad)),
            ("max_upscale", .double(request.maxUpscale)),
            ("caption", .string(request.caption)),
            ("pose_bins", .object([
                ("frontal_yaw", .double(PoseBin.frontalYaw)), ("frontal_pitch", .double(PoseBin.frontalPitch)),
            ])),
            ("score_from", .string(request.scoreFrom)),
            ("picked_crops", .int(written.count)),
            ("cut_from_photo", .int(cut)),
            ("copied", .int(written.count - cut)),
            ("contact_sheets", .array(request.sheets.map(JSON.string))),
            ("left_out_crops", .int(leftOut.count)),
            ("picked", .array(written.enumerated().map { entry($0.offset + 1, $0.element) })),
            ("left_out", .array(leftOut.map(leftOutEntry))),
        ])
    }

    /// A face not picked: which, and why (`crop_number` null for a face the
    /// dataset gave no crop).
    package static func leftOutEntry(_ left: PickLeftOut) -> JSON {
        let candidate = left.candidate
        return .object([
            ("source", .string(candidate.photoKey)),
            ("face", .int(candidate.face)),
            ("crop", candidate.crop.isEmpty ? .null : .string(candidate.crop)),
            ("crop_number", candidate.number > 0 ? .int(candidate.number) : .null),
            ("person", candidate.person.map(JSON.string) ?? .null),
            ("time", candidate.time.map(JSON.double) ?? .null),
            ("reason", .string(left.reason)),
        ])
    }

    package static func entry(_ tile: Int, _ written: PickWriter.Written) -> JSON {
        let choice = written.choice
        let candidate = choice.candidate
        let pose: JSON = candidate.pose.map { pose in
            .object([("yaw", .double(pose.yaw)), ("pitch", .double(pose.pitch)), ("roll", .double(pose.roll))])
        } ?? .null
        return .object([
            ("tile", .int(tile)),
            ("file", .string(written.file)),
            ("caption", .string(written.caption)),
            ("source", .string(candidate.photoKey)),
            ("face", .int(candidate.face)),
            ("crop", .string(candidate.crop)),
            ("crop_number", .int(candidate.number)),
            ("person", candidate.person.map(JSON.string) ?? .null),
            ("score", .double(choice.score)),
            ("score_from", .string(choice.scoreSource.rawValue)),
            ("quality_reason", candidate.qualityReason.map(JSON.string) ?? .null),
            ("pose", pose),
            ("pose_bin", .string(choice.bin.rawValue)),
            ("taken", candidate.taken.map(JSON.string) ?? .null),
            ("cut", .string(written.cut ? "photo" : "copied")),
            ("enlargement", .double(PickSizing.rounded(written.enlargement))),
            ("margin_used", .double(PickSizing.rounded(written.margin))),
            ("near_duplicates", .array(choice.others.map(JSON.int))),
            ("why", .array(choice.why.map(JSON.string))),
        ])
    }
}
