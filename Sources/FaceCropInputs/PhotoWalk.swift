import Foundation
import FaceCropCore

/// One thing the walk found.
public enum WalkItem: Sendable, Equatable {
    case photo(Photo)
    case problem(FindProblem)

    /// Its place in manifest order: input, then source path.
    package var key: (Int, String) {
        switch self {
        case .photo(let photo): (photo.inputIndex, photo.source)
        case .problem(let problem): (problem.inputIndex, problem.source)
        }
    }
}

/// The inputs' photos and problems in manifest order (by input, then by
/// source path byte by byte, `PhotoFinder.precedes`), found depth-first one
/// folder at a time. Memory holds the entries of the folders on the current
/// path (one folder per level), never the whole library.
///
/// Why depth-first with each folder sorted is manifest order: a folder's
/// photos all start with its name and a '/', so the folder sorts among its
/// neighbours by "name/": "a b.jpg" < "a.jpg" < "a/x.jpg" < "a0.jpg", since
/// ' ' < '.' < '/' < '0'. Names are compared as the UTF-8 of the String the
/// manifest shows (`FileName.text`), not as raw bytes. A folder that cannot
/// be read, or that closes a link loop, is one problem named without the
/// '/', so it is checked while its parent is listed and sorts by its name.
public struct PhotoWalk: Sequence {
    package let finder: PhotoFinder
    package let inputs: [String]
    /// Labels the crops of each input go under (empty with one input).
    public let labels: [String]
    private let infos: [stat]

    package init(finder: PhotoFinder, inputs: [String]) throws(FaceCropError) {
        self.finder = finder
        self.inputs = inputs
        labels = PhotoFinder.labels(for: inputs)
        var infos: [stat] = []
        for input in inputs {
            var info = stat()
            guard stat(input, &info) == 0 else { throw .inputMissing(input, reason: systemError(errno)) }
            infos.append(info)
        }
        self.infos = infos
    }

    public func makeIterator() -> Iterator { Iterator(walk: self) }

    /// A folder entry, listed and checked but not yet returned.
    fileprivate enum Entry {
        case item(WalkItem)
        case folder(path: [UInt8], relative: String, identity: FileIdentity, role: Libraries.Role)
    }

    /// A folder being walked: its sorted entries and how far the walk got.
    fileprivate struct Frame {
        var entries: [Entry]
        var position = 0
        var identity: FileIdentity?
    }

    /// A folder's place in a photo library, as its listing sees it.
    fileprivate struct LibraryScope {
        /// The Apple Photos bundle this folder is.
        var bundle: [UInt8]?
        /// The bundle's originals kept in iCloud.
        var missing: Set<String> = []
        /// The only names the walk sees here; nil: every name.
        var only: Set<String>?

        /// The role of the entry `name` of a folder with this scope and `role`.
        func role(of name: String, in role: Libraries.Role) -> Libraries.Role {
            if let bundle {
                name == "resources" ? .resources(missing: missing) : .originals(bundle: bundle)
            } else {
                switch role {
                case .resources(let absent): name == "renders" ? .renders : .derivatives(missing: absent)
                default: role
                }
            }
        }
    }

    public final class Iterator: IteratorProtocol {
        private let walk: PhotoWalk
        private var input = -1
        private var stack: [Frame] = []
        /// The folders on the current path, to catch link loops.
        private var visiting: Set<FileIdentity> = []

        fileprivate init(walk: PhotoWalk) { self.walk = walk }

        public func next() -> WalkItem? {
            while true {
                if let top = stack.indices.last {
                    guard stack[top].position < stack[top].entries.count else {
                        if let identity = stack.removeLast().identity { visiting.remove(identity) }
                        continue
                    }
                    let entry = stack[top].entries[stack[top].position]
                    stack[top].position += 1
                    switch entry {
                    case .item(let item): return item
                    case .folder(let path, let relative, let identity, let role):
                        visiting.insert(identity)
                        stack.append(Frame(entries: list(path, relative: relative, role: role), identity: identity))
                    }
                    continue
                }
                input += 1
                guard input < walk.inputs.count else { return nil }
                if let item = startInput() { return item }
            }
        }

        /// Starts the next input: a folder is pushed, a file is returned.
        private func startInput() -> WalkItem? {
            let path = walk.inputs[input]
            let info = walk.infos[input]
            let label = walk.labels[input]
            if (info.st_mode & S_IFMT) == S_IFDIR {
                let identity = FileIdentity(info)
                visiting = [identity]
                stack.append(Frame(entries: list(Array(path.utf8), relative: "", role: .plain), identity: identity))
                return nil
            }
            let name = (path as NSString).lastPathComponent
            guard walk.finder.isInputName(name) else {
                return .problem(
                    FindProblem(inputIndex: input, label: label, source: name, reason: "not a photo file name (\(PhotoFinder.extensionList))"))
            }
            var photo = Photo(inputIndex: input, source: name, path: path, outputPrefix: PhotoFinder.join(label, PhotoFinder.safeName(name)), label: label)
            photo.noteFile(info)
            return .photo(photo)
        }

        private func problem(_ source: String, _ reason: String, unreadable: Bool = false) -> Entry {
            .item(.problem(FindProblem(inputIndex: input, label: walk.labels[input], source: source, reason: reason, unreadable: unreadable)))
        }

        /// A folder's entries, checked and sorted in manifest order, with the
        /// rules of the photo library it is part of (`Libraries`).
        private func list(_ folder: [UInt8], relative: String, role: Libraries.Role) -> [Entry] {
            guard let directory = FileName.withCPath(folder, { opendir($0) }) else {
                return [problem(relative.isEmpty ? "." : relative, "cannot read folder: \(systemError(errno))", unreadable: true)]
            }
            let names = readNames(directory)
            let texts = names.map(FileName.text)
            let folderPath = folder.last == UInt8(ascii: "/") ? Array(folder.dropLast()) : folder
            var keyed: [(key: [UInt8], entry: Entry)] = []
            let scope = libraryScope(folderPath, relative: relative, role: role, texts: texts, keyed: &keyed)
            let photoNames = texts.filter(PhotoFinder.isPhotoName)
            let skipped = skippedNames(photoNames, folderPath: folderPath, role: role)
            // A video's sidecar too: its names are its track's person (`--people`).
            let videoNames = walk.finder.videos ? texts.filter(VideoFiles.isVideoName) : []
            let sidecars = Libraries.sidecars(
                photos: photoNames + videoNames, jsons: Set(texts.filter { $0.lowercased().hasSuffix(".json") }))
            let xmps = Libraries.xmpSidecars(photos: photoNames, xmps: texts.filter(Libraries.isXMPName))
            // Live Photos: the stills in this folder (on disk, whatever the
            // edit rules skip), whose .mov is skipped.
            let stills = walk.finder.videos && !walk.finder.livePhotoVideos ? LivePhoto.stillStems(texts) : []
            for (nameBytes, name) in zip(names, texts) {
                if let only = scope.only, !only.contains(name) { continue }
                if skipped.contains(name) { continue }
                if !stills.isEmpty && LivePhoto.isMotion(name, stills: stills) { continue }
                let path = folder + (folder.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]) + nameBytes
                let sidecar = sidecars[name].map { String(decoding: folderPath, as: UTF8.self) + "/" + $0 }
                let xmp = xmps[name].map { String(decoding: folderPath, as: UTF8.self) + "/" + $0 }
                if let entry = check(
                    path, name: name, relative: PhotoFinder.join(relative, name), role: scope.role(of: name, in: role),
                    sidecar: sidecar, xmp: xmp)
                {
                    if case .folder = entry {
                        keyed.append((Array(name.utf8) + [UInt8(ascii: "/")], entry))
                    } else {
                        keyed.append((Array(name.utf8), entry))
                    }
                }
            }
            keyed.sort { $0.key.lexicographicallyPrecedes($1.key) }
            return keyed.map(\.entry)
        }

        /// The names an open folder holds (hidden ones, "." and ".." left
        /// out), in the order the system gives them; closes the folder.
        private func readNames(_ directory: OpaquePointer) -> [[UInt8]] {
            var names: [[UInt8]] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
                if name.first == UInt8(ascii: ".") { continue }  // hidden, ".", ".."
                names.append(name)
            }
            closedir(directory)
            return names
        }

        /// Which of a folder's names its library role lets the walk see.
        /// An Apple Photos bundle: only its originals (and, with
        /// --library-edits, its renders; with --library-derivatives, the
        /// largest derivative of a photo with no original); a count of
        /// originals kept in iCloud otherwise, added to `keyed`.
        private func libraryScope(
            _ folderPath: [UInt8], relative: String, role: Libraries.Role, texts: [String], keyed: inout [(key: [UInt8], entry: Entry)]
        ) -> LibraryScope {
            let edits = walk.finder.libraryEdits
            let derivatives = walk.finder.libraryDerivatives
            var scope = LibraryScope()
            if role == .plain, let originals = Libraries.photosBundle(folderPath, names: Set(texts)) {
                scope.bundle = folderPath
                if originals == "originals" {
                    let (absent, total) = Libraries.missingOriginals(bundle: folderPath, originals: originals)
                    scope.missing = absent
                    if !absent.isEmpty && !derivatives {
                        // Named as the folder, so it sorts just before it.
                        keyed.append((Array(originals.utf8), problem(PhotoFinder.join(relative, originals), "\(absent.count) of \(total) photos of this Apple Photos library have no original here (kept in iCloud with \"Optimize Mac Storage\"); download the originals in Photos to include them, or use --library-derivatives")))
                    }
                }
                let resources = edits || (derivatives && !scope.missing.isEmpty)
                scope.only = Set([originals] + (resources ? ["resources"] : []))
            } else if case .resources(let absent) = role {
                scope.only = Set((edits ? ["renders"] : []) + (derivatives && !absent.isEmpty ? ["derivatives"] : []))
            } else if case .derivatives = role {
                scope.only = Set(texts.filter { $0 != "masters" })  // thumbnails
            }
            return scope
        }

        /// The photo names a library's edit and derivative rules skip.
        private func skippedNames(_ photoNames: [String], folderPath: [UInt8], role: Libraries.Role) -> Set<String> {
            let edits = walk.finder.libraryEdits
            var skipped = Libraries.skippedForEdits(photoNames, edits: edits)
            if case .originals(let bundle) = role, edits {
                for name in photoNames where Libraries.hasRender(bundle: bundle, original: name) { skipped.insert(name) }
            }
            if role == .renders { skipped.formUnion(photoNames.filter { !Libraries.isRender($0) }) }
            if case .derivatives(let absent) = role {
                skipped.formUnion(Libraries.largestDerivatives(photoNames, in: folderPath, missing: absent))
            }
            return skipped
        }

        /// What one name in a folder is to the walk; nil when it is skipped.
        private func check(_ path: [UInt8], name: String, relative rel: String, role: Libraries.Role, sidecar: String?, xmp: String? = nil)
            -> Entry?
        {
            let finder = walk.finder
            if finder.isExcluded(name: name, relative: rel) { return nil }
            var info = stat()
            guard FileName.withCPath(path, { lstat($0, &info) }) == 0 else {
                return problem(rel, "cannot read: \(systemError(errno))", unreadable: true)
            }
            if (info.st_mode & S_IFMT) == S_IFLNK {
                guard finder.followLinks else { return nil }
                guard FileName.withCPath(path, { stat($0, &info) }) == 0 else {
                    return problem(rel, "broken symbolic link: \(systemError(errno))", unreadable: true)
                }
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                let identity = FileIdentity(info)
                if identity == finder.outputIdentity { return nil }
                if visiting.contains(identity) { return problem(rel, "symbolic link loop; skipped") }
                // Opened now so that a folder that cannot be read sorts by its name.
                guard let directory = FileName.withCPath(path, { opendir($0) }) else {
                    return problem(rel, "cannot read folder: \(systemError(errno))", unreadable: true)
                }
                closedir(directory)
                return .folder(path: path, relative: rel, identity: identity, role: role)
            case S_IFREG:
                guard finder.isInputName(name), finder.isIncluded(name: name, relative: rel) else { return nil }
                let label = walk.labels[input]
                let safe = rel.split(separator: "/", omittingEmptySubsequences: false).map { PhotoFinder.safeName(String($0)) }
                let text = String(decoding: path, as: UTF8.self)
                var photo = Photo(
                    inputIndex: input, source: rel, path: text,
                    outputPrefix: PhotoFinder.join(label, safe.joined(separator: "/")), label: label)
                // Kept only when the String cannot name the file (bytes that are not UTF-8).
                if !text.utf8.elementsEqual(path) { photo.rawPath = path }
                photo.sidecar = sidecar
                photo.xmpSidecar = xmp
                photo.noteFile(info)
                return .item(.photo(photo))
            default:
                return nil
            }
        }
    }
}
