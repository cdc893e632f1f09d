import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropOutput
import FaceCropPeople

/// `facecrop export xmp <dataset> <out>`: one XMP sidecar per photo with
/// named faces, `<out>/<input>/<source>.xmp` (the photo tree mirrored, as
/// digiKam names sidecars: `IMG_1234.jpg.xmp`), never beside the photos.
/// Each holds MWG face regions (type Face, Name, a normalised centre-based
/// Area) for every named face: its person from people.txt (`--people`),
/// else its tag's name, else the one name a Takeout sidecar gives a photo
/// of one face. Written through Exiv2 (the shim's xmp.cpp), atomically.
///
/// The areas are of the photo as facecrop saw it, upright, and
/// AppliedToDimensions says its upright size: for a photo stored turned
/// (EXIF orientation 5-8), readers that follow AppliedToDimensions (facecrop
/// does, `FaceTags`) place them right; the dataset does not keep the
/// photo's orientation.
package enum XMPExport {
    package struct Face {
        package var name: String
        package var box: PixelRect

        package init(name: String, box: PixelRect) {
            (self.name, self.box) = (name, box)
        }
    }

    package struct Photo {
        package var path: String
        package var width: Int
        package var height: Int
        package var faces: [Face] = []
    }

    package static let usage = "Usage: facecrop export xmp <dataset> <out> [--quiet]"
    package static let help = """
        \(usage)

        Writes an XMP sidecar for each photo of <dataset> (a facecrop output
        folder) with named faces, as <out>/<photo's path>.xmp (the photo tree
        mirrored; never beside the photos): MWG face regions with each face's
        name (from people.txt, a face tag, or Google Takeout) and area, which
        digiKam, Lightroom and exiftool read. Photos without a named face get
        no sidecar.

        Options:
          -q, --quiet      No summary on stderr.
          -h, --help       Show this help.

        """

    package static func run(_ arguments: [String], temporaries: TemporaryFiles) -> Int32 {
        if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
            Terminal.stdout(help)
            return ExitStatus.success
        }
        let quiet = arguments.contains { $0 == "-q" || $0 == "--quiet" }
        let rest = arguments.filter { $0 != "-q" && $0 != "--quiet" }
        let problem: String? =
            if let option = rest.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
                "unknown option '\(option)'"
            } else if rest.count != 2 {
                rest.count < 2 ? "export xmp needs a dataset folder and an output folder" : "unexpected argument '\(rest[2])'"
            } else {
                nil
            }
        if let problem {
            Terminal.stderr("Error: \(problem)\n\(usage)\nSee 'facecrop export --help' for more information.\n")
            return ExitStatus.usage
        }
        do throws(FaceCropError) {
            let written = try export(dataset: rest[0], output: rest[1], temporaries: temporaries)
            if !quiet { Terminal.stderr("facecrop: wrote \(written) XMP sidecars -> '\(rest[1])'\n") }
            return ExitStatus.success
        } catch {
            Terminal.stderr("facecrop: error: \(error.description)\n")
            return error.exitStatus
        }
    }

    /// The name one manifest line gives its face, if any.
    package static func name(of object: [String: Any], photoFaces: Int) -> String? {
        if let person = object["person"] as? String, !PeopleListing.isGroupID(person) { return person }
        if let tag = object["tag_name"] as? String, !tag.isEmpty { return tag }
        if photoFaces == 1, let names = object["names"] as? [String], names.count == 1, object["tagged"] == nil {
            return names[0]
        }
        return nil
    }

    /// The photos of the manifest with named faces, in manifest order.
    package static func photos(manifest: String) -> [Photo] {
        var order: [String] = []
        var lines: [String: [[String: Any]]] = [:]
        for line in ManifestLines(path: manifest) where line.object["bbox"] != nil && line.object["video"] == nil {
            let source = line.object["source"] as? String ?? ""
            let input = line.object["input"] as? String ?? ""
            let path = input.isEmpty ? source : input + "/" + source
            if lines[path] == nil { order.append(path) }
            lines[path, default: []].append(line.object)
        }
        var photos: [Photo] = []
        for path in order {
            let faces = lines[path]!
            guard let first = faces.first, let width = first["width"] as? Int, let height = first["height"] as? Int,
                width > 0, height > 0
            else { continue }
            var photo = Photo(path: path, width: width, height: height)
            for object in faces {
                guard let name = name(of: object, photoFaces: faces.count), let box = object["bbox"] as? [Int], box.count == 4
                else { continue }
                photo.faces.append(Face(name: name, box: PixelRect(x: box[0], y: box[1], width: box[2], height: box[3])))
            }
            if !photo.faces.isEmpty { photos.append(photo) }
        }
        return photos
    }

    /// The sidecar text of one photo.
    package static func sidecar(_ photo: Photo) -> Result<String, XMPFailure> {
        let (w, h) = (Double(photo.width), Double(photo.height))
        return XMPRegions.sidecar(
            faces: photo.faces.map { face in
                (
                    face.name, (Double(face.box.x) + Double(face.box.width) / 2) / w,
                    (Double(face.box.y) + Double(face.box.height) / 2) / h, Double(face.box.width) / w,
                    Double(face.box.height) / h
                )
            }, width: photo.width, height: photo.height)
    }

    /// Writes the sidecars; returns how many.
    package static func export(dataset: String, output: String, temporaries: TemporaryFiles) throws(FaceCropError) -> Int {
        let manifest = dataset + "/" + Manifest.fileName
        guard access(manifest, R_OK) == 0 else {
            throw .inputMissing(dataset, reason: "no readable \(Manifest.fileName) (\(systemError(errno))): not a facecrop dataset")
        }
        var written = 0
        for photo in photos(manifest: manifest) {
            let target = output + "/" + photo.path + ".xmp"
            // <out> is where the photos are: the sidecar would lie beside one.
            if access(output + "/" + photo.path, F_OK) == 0 {
                throw .outputUnusable(output, reason: "it holds the photos themselves ('\(photo.path)'); export xmp never writes beside the photos")
            }
            switch sidecar(photo) {
            case .failure(let failure):
                throw .outputUnusable(target, reason: failure.reason)
            case .success(let text):
                do throws(WriteFailure) {
                    try AtomicFile.makeFolder((target as NSString).deletingLastPathComponent)
                    try AtomicFile.write(Array(text.utf8), to: target, temporaries: temporaries)
                } catch {
                    throw .outputUnusable(target, reason: error.reason)
                }
                written += 1
            }
        }
        return written
    }
}
