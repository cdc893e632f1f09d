extension Set<String> {
    /// `name`, or else the first of "name-2", "name-3", ... that is not in
    /// the set, added to it: folder names made unique in the order they are
    /// asked for, so the same names give the same folders on every run.
    package mutating func insertUnique(_ name: String) -> String {
        var unique = name
        var counter = 2
        while contains(unique) {
            unique = "\(name)-\(counter)"
            counter += 1
        }
        insert(unique)
        return unique
    }
}
