extension Usage {
    /// Why `entry` is the next choice (before it is added), for pick.json.
    package func reasons(_ entry: PickChooser.Entry, others: Int) -> [String] {
        var why: [String] = []
        let bin = entry.bin.rawValue
        let binUses = bins[entry.bin, default: 0]
        if entry.bin == .unknown {
            why.append("pose not known (a dataset made before pose)")
        } else {
            why.append(binUses == 0 ? "first crop in pose bin \(bin)" : "pose bin \(bin) again (\(binUses + 1) uses): every bin left was used as often")
        }
        if let year = entry.candidate.year {
            let uses = years[year, default: 0]
            why.append(uses == 0 ? "first crop from \(year)" : "\(year) again (\(uses + 1) uses)")
        } else {
            why.append("capture date not known")
        }
        if entry.score < poorBelow {
            why.append("score \(entry.score) (\(entry.source.rawValue)) under half the median (\(PickJSON.decimal(poorBelow, places: 4))): taken after every better crop")
        } else {
            why.append("best score among the equally new (\(entry.score), \(entry.source.rawValue))")
        }
        if others > 0 { why.append("stands for \(others) near-duplicate\(others == 1 ? "" : "s") set aside") }
        return why
    }
}
