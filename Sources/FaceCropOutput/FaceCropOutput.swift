// FaceCropOutput: the dataset's files. Records to JSON lines and back (manifest lines, state
// and journal, stats), prune, tar shards, the output lock, the shard runs. Imports FaceCropCore,
// FaceCropImaging and FaceCropDetect (the settings a run records); never identity or curation.
