import Foundation

/// Step 2 of a run: what it has to do: which photos to process, which
/// earlier records to keep, which photos are gone.
struct Plan {
    var items: [WorkItem] = []
    /// Photos recorded before and not found now (label/source).
    var gone: [String] = []
    /// Why a photo with an earlier record is processed again, by key.
    var reasons: [String: String] = [:]

    /// --overwrite: no earlier record is kept.
    var overwrite = false

    /// The photos under the inputs (this shard's), against what the output
    /// folder remembers. Failed photos are tried again on every run, but for
    /// --check an unchanged photo that failed before is as up to date as any other.
    static func make(_ setup: RunSetup) throws(FaceCropError) -> (plan: Plan, loaded: StateStore.Loaded) {
        let options = setup.options
        let finder = PhotoFinder(
            include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: setup.output)
        var found = try finder.find(options.inputs)
        if let shard = options.shard {
            found.photos.removeAll { !shard.owns(label: $0.label, source: $0.source) }
            found.problems.removeAll { !shard.owns(label: $0.label, source: $0.source) }
        }
        let loaded = setup.store.load(settingsHash: setup.settingsHash)
        let plan = Plan(found: found, loaded: loaded, overwrite: options.overwrite, retryErrors: !options.check, output: setup.output)
        return (plan, loaded)
    }

    init(found: PhotoFinder.Found, loaded: StateStore.Loaded, overwrite: Bool, retryErrors: Bool, output: String) {
        self.overwrite = overwrite
        var present: Set<String> = []
        for photo in found.photos {
            let key = StateStore.key(label: photo.label, source: photo.source)
            present.insert(key)
            guard !overwrite, let record = loaded.records[key] else {
                if overwrite, loaded.records[key] != nil { reasons[key] = "overwrite" }
                items.append(.photo(photo, previous: nil))
                continue
            }
            let cropsThere = record.crops.allSatisfy { access(output + "/" + $0, F_OK) == 0 }
            if record.status == .error && (retryErrors || record.sha256 == nil) {
                reasons[key] = "failed before"
                items.append(.photo(photo, previous: nil))
            } else if !cropsThere {
                reasons[key] = "crop missing"
                items.append(.photo(photo, previous: nil))
            } else if record.size == photo.size && record.modified == photo.modified {
                items.append(.kept(record))
            } else {
                // Same content under a new time (a fresh checkout) is kept
                // after hashing; the worker decides.
                items.append(.photo(photo, previous: record))
            }
        }
        for problem in found.problems { items.append(.problem(problem)) }
        items.sort { PhotoFinder.precedes($0.key, $1.key) }
        gone = loaded.records.values.filter { !present.contains($0.key) }
            .map { PhotoFinder.join($0.label, $0.source) }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The earlier record a stopped run keeps for an item it did not reach.
    func earlier(_ item: WorkItem, loaded: StateStore.Loaded) -> PhotoRecord? {
        switch item {
        case .kept(let record): record
        case .photo(let photo, _): overwrite ? nil : loaded.records[StateStore.key(label: photo.label, source: photo.source)]
        case .problem: nil
        }
    }

    /// Whether the photo's bytes hash to the record's (reads the file).
    static func sameContent(_ photo: Photo, as record: PhotoRecord) -> Bool {
        guard let bytes = try? PhotoBytes(path: photo.path, rawPath: photo.rawPath, source: photo.source) else { return false }
        return bytes.sha256 == record.sha256
    }
}
