import Foundation
import FaceCropCore

/// Photo libraries as people keep them: how the walk reads an Apple Photos
/// bundle, an iPhone import and a Google Takeout folder (docs/libraries.md).
/// Each rule looks only at one folder's names (and, for a Photos bundle, a
/// few fixed paths in it), so the walk stays one folder at a time.
package enum Libraries {
    // MARK: Apple Photos bundles

    /// What a folder is to the walk inside an Apple Photos bundle.
    package enum Role: Sendable, Equatable {
        /// Any folder outside a bundle.
        case plain
        /// `originals/` (Photos 5 and later) or `Masters/` (older), and the
        /// folders in it; `bundle` is the bundle's path.
        case originals(bundle: [UInt8])
        /// `resources/` (with `--library-edits` or `--library-derivatives`);
        /// `missing`: the UUIDs of photos with no original.
        case resources(missing: Set<String>)
        /// `--library-edits`: `resources/renders/` and its folders.
        case renders
        /// `--library-derivatives`: `resources/derivatives/` and its `X/`
        /// folders, where the largest derivative of each `missing` photo is read.
        case derivatives(missing: Set<String>)
    }

    /// The bundle's layout, recognised by its contents whatever its name:
    /// `database/Photos.sqlite` (or `database/photos.db`, before Photos 5)
    /// beside `originals/` or `Masters/`. nil for any other folder.
    package static func photosBundle(_ folder: [UInt8], names: Set<String>) -> String? {
        guard names.contains("database") else { return nil }
        let database = folder + Array("/database/".utf8)
        guard exists(database + Array("Photos.sqlite".utf8)) || exists(database + Array("photos.db".utf8)) else {
            return nil
        }
        if names.contains("originals") { return "originals" }
        if names.contains("Masters") { return "Masters" }
        return nil
    }

    /// The names of a bundle's folder the walk goes into: the originals,
    /// and with `--library-edits` the renders too.

    /// Photos 5+ keeps a photo's edit as `resources/renders/X/UUID_1_201_a.jpeg`
    /// (X: the UUID's first character; `.heic` on later versions), as
    /// osxphotos documents (`PhotoInfo.path_edited`).
    package static let renderMark = "_1_201_a"

    /// The render of an original `originals/X/UUID.ext`, when there is one.
    package static func hasRender(bundle: [UInt8], original name: String) -> Bool {
        let uuid = stem(name)
        guard let first = uuid.first else { return false }
        let base = bundle + Array("/resources/renders/\(first)/\(uuid)\(renderMark).".utf8)
        return ["jpeg", "heic", "jpg"].contains { exists(base + Array($0.utf8)) }
    }

    /// A render the walk takes: an edited photo's render, not the other
    /// files Photos keeps there (adjustment plists, video renders).
    package static func isRender(_ name: String) -> Bool { stem(name).hasSuffix(renderMark) }

    /// "Optimize Mac Storage": photos whose originals are in iCloud, not
    /// here. Photos keeps a derivative of every photo
    /// (`resources/derivatives/X/UUID_1_105_c.jpeg`, ...), so those with a
    /// derivative and no original are counted: (their UUIDs, all photos).
    package static func missingOriginals(bundle: [UInt8], originals: String) -> (missing: Set<String>, total: Int) {
        let have = Set(filesBelow(bundle + Array("/\(originals)".utf8), depth: originals == "originals" ? 1 : 4).map(stem))
        var seen: Set<String> = []
        for name in filesBelow(bundle + Array("/resources/derivatives".utf8), depth: 1) {
            guard let underscore = name.firstIndex(of: "_") else { continue }
            seen.insert(String(name[..<underscore]))
        }
        let missing = seen.subtracting(have)
        return (missing, have.count + missing.count)
    }

    /// `--library-derivatives`: of one `resources/derivatives/X/` folder's
    /// photos, the largest file of each photo in `missing` (by size, then
    /// name); every other name is skipped.
    package static func largestDerivatives(_ photoNames: [String], in folder: [UInt8], missing: Set<String>) -> Set<String> {
        var best: [String: (size: Int, name: String)] = [:]
        for name in photoNames {
            guard let underscore = name.firstIndex(of: "_") else { continue }
            let uuid = String(name[..<underscore])
            guard missing.contains(uuid) else { continue }
            var info = stat()
            guard FileName.withCPath(folder + Array("/\(name)".utf8), { stat($0, &info) }) == 0 else { continue }
            let size = Int(info.st_size)
            if let kept = best[uuid], kept.size > size || (kept.size == size && kept.name < name) { continue }
            best[uuid] = (size, name)
        }
        return Set(photoNames).subtracting(best.values.map(\.name))
    }

    // MARK: Edited copies (iPhone imports and Google Takeout)

    /// The original a name is an edited copy of, as the folder would hold
    /// it; nil when the name is not an edit. iPhone: `IMG_E1234.JPG` edits
    /// `IMG_1234.*`. Takeout: `IMG-edited.jpg` (and the localised words in
    /// `takeoutEditWords`) edits `IMG.*`.
    package static func editedOriginalStem(_ name: String) -> String? {
        let base = stem(name)
        if base.hasPrefix("IMG_E"), base.count > 5, base.dropFirst(5).allSatisfy(\.isNumber) {
            return "IMG_" + base.dropFirst(5)
        }
        guard base.contains("-") else { return nil }
        let composed = composed(base)
        for word in takeoutEditWords where composed.hasSuffix(word) && composed.count > word.count {
            return String(composed.dropLast(word.count))
        }
        return nil
    }

    /// Google Photos' edited-copy suffixes, by the export's language: en,
    /// de, fr, it, nl, pl, ca, es, ja (as the Takeout community's tools list
    /// them; docs/libraries.md).
    package static let takeoutEditWords = [
        "-edited", "-bearbeitet", "-modifié", "-modificato", "-bewerkt", "-edytowane", "-editat", "-ha editado", "-編集済み",
    ]

    /// The photo names of one folder to skip: an edit whose original is
    /// there (default), or with `edits` the original of an edit that is there.
    package static func skippedForEdits(_ photoNames: [String], edits: Bool) -> Set<String> {
        var byStem: [String: [String]] = [:]
        for name in photoNames { byStem[composed(stem(name)), default: []].append(name) }
        var skipped: Set<String> = []
        for name in photoNames {
            guard let original = editedOriginalStem(name), let originals = byStem[original] else { continue }
            if edits { skipped.formUnion(originals) } else { skipped.insert(name) }
        }
        return skipped
    }

    // MARK: Google Takeout sidecars

    /// The sidecar JSON of each photo in one folder, by photo name:
    /// `IMG.jpg.json`, `IMG.jpg.supplemental-metadata.json` and every
    /// truncation of it Takeout writes (`IMG.jpg.suppl.json`, `IMG.jpg..json`,
    /// a long name cut to 46 characters and `.json`), `IMG.json`, and for
    /// `IMG(1).jpg` the numbered `IMG.jpg(1).json`. An edited copy
    /// (`IMG-edited.jpg`) has none of its own: it takes its original's.
    package static func sidecars(photos: [String], jsons: Set<String>) -> [String: String] {
        guard !jsons.isEmpty else { return [:] }
        var found: [String: String] = [:]
        for photo in photos {
            if let sidecar = sidecar(of: photo, jsons: jsons) {
                found[photo] = sidecar
            } else if let original = editedOriginalStem(photo), let dot = photo.lastIndex(of: ".") {
                let originalName = original + photo[dot...]
                if let sidecar = sidecar(of: originalName, jsons: jsons) { found[photo] = sidecar }
            }
        }
        return found
    }

    package static func sidecar(of photo: String, jsons: Set<String>) -> String? {
        var number = ""
        var name = photo
        // "IMG(1).jpg": Takeout's second photo of the same name.
        if let dot = photo.lastIndex(of: "."), photo[..<dot].hasSuffix(")"),
            let open = photo[..<dot].lastIndex(of: "("),
            photo[photo.index(after: open)..<photo.index(before: dot)].allSatisfy(\.isNumber),
            photo.index(after: open) < photo.index(before: dot)
        {
            number = String(photo[open..<dot])
            name = String(photo[..<open]) + photo[dot...]
        }
        let full = name + ".supplemental-metadata"
        let shortest = min(name.count, 46)
        for length in stride(from: full.count, through: shortest, by: -1) {
            let candidate = String(full.prefix(length)) + number + ".json"
            if jsons.contains(candidate) { return candidate }
        }
        let bare = stem(name) + number + ".json"
        return jsons.contains(bare) ? bare : nil
    }

    /// What facecrop takes from a sidecar: the capture time and the names
    /// of the people Google recognised.
    package struct Sidecar: Sendable, Equatable {
        package var taken: CaptureTime?
        package var names: [String] = []

        /// Reads `path`; a sidecar that cannot be read or parsed gives nothing.
        package init?(path: String) {
            guard let object = JSONReading.object(atPath: path) else { return nil }
            if let time = object["photoTakenTime"] as? [String: Any] {
                let stamp = (time["timestamp"] as? String).flatMap { Int($0) } ?? (time["timestamp"] as? Int)
                taken = stamp.flatMap { CaptureTime(unixSeconds: $0) }
            }
            for person in object["people"] as? [[String: Any]] ?? [] {
                if let name = (person["name"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty,
                    !names.contains(name)
                {
                    names.append(name)
                }
            }
        }
    }

    // MARK: XMP sidecars

    /// The XMP sidecar of each photo in one folder, by photo name:
    /// `IMG.jpg.xmp` (digiKam's and darktable's name) else `IMG.xmp`
    /// (Lightroom's, Capture One's), either case of `.xmp`.
    package static func xmpSidecars(photos: [String], xmps: [String]) -> [String: String] {
        guard !xmps.isEmpty else { return [:] }
        var byName: [String: String] = [:]
        byName.reserveCapacity(xmps.count)
        for name in xmps {
            // Two spellings of one sidecar (`.xmp`, `.XMP`): the first in byte order.
            let key = composed(stem(name))
            if let kept = byName[key], kept.utf8.lexicographicallyPrecedes(name.utf8) { continue }
            byName[key] = name
        }
        var found: [String: String] = [:]
        for photo in photos {
            if let sidecar = byName[composed(photo)] ?? byName[composed(stem(photo))] { found[photo] = sidecar }
        }
        return found
    }

    /// Ends in `.xmp`, any case: four bytes compared, as every name of every
    /// folder is asked (lowercasing each name cost the walk ~10 %).
    package static func isXMPName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard bytes.count > 4 else { return false }
        var tail = bytes.suffix(4).makeIterator()
        return tail.next() == UInt8(ascii: ".") && tail.next().map { $0 | 0x20 } == UInt8(ascii: "x")
            && tail.next().map { $0 | 0x20 } == UInt8(ascii: "m") && tail.next().map { $0 | 0x20 } == UInt8(ascii: "p")
    }

    // MARK: Helpers

    /// `text` in Unicode's composed form (a Mac may write "é" decomposed);
    /// ASCII as it is, without Foundation's conversion.
    package static func composed(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
    }

    /// A name without its last extension.
    package static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    package static func exists(_ path: [UInt8]) -> Bool {
        var info = stat()
        return FileName.withCPath(path) { stat($0, &info) } == 0
    }

    /// Names of the regular files in `folder`'s subfolders `depth` levels
    /// down (1: `folder/X/name`), hidden names left out.
    package static func filesBelow(_ folder: [UInt8], depth: Int) -> [String] {
        var names: [String] = []
        for entry in entries(folder) {
            let path = folder + [UInt8(ascii: "/")] + entry
            var info = stat()
            guard FileName.withCPath(path, { stat($0, &info) }) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                if depth > 0 { names += filesBelow(path, depth: depth - 1) }
            } else if depth == 0, (info.st_mode & S_IFMT) == S_IFREG {
                names.append(FileName.text(entry))
            }
        }
        return names
    }

    package static func entries(_ folder: [UInt8]) -> [[UInt8]] {
        guard let directory = FileName.withCPath(folder, { opendir($0) }) else { return [] }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if name.first == UInt8(ascii: ".") { continue }
            names.append(name)
        }
        return names
    }
}
