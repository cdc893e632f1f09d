import Foundation

/// `--prune`: removes files facecrop wrote that no photo produces any more.
package enum Prune {
    /// Deletes `files` (relative to `output`; absolute or `..` paths are
    /// refused) and the folders that leaves empty. Returns how many it removed.
    package static func files(_ files: Set<String>, in output: String) -> Int {
        var removed = 0
        for file in files.sorted() where !file.isEmpty && !file.hasPrefix("/") && !file.split(separator: "/").contains("..") {
            if unlink(output + "/" + file) == 0 { removed += 1 }
            var folder = (file as NSString).deletingLastPathComponent
            while !folder.isEmpty, rmdir(output + "/" + folder) == 0 {
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        return removed
    }
}
