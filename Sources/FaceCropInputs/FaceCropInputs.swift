// FaceCropInputs: finding the inputs: the walk (depth-first, each folder sorted), photo
// libraries (Apple Photos, iPhone imports, Google Takeout) and their sidecars, Live Photos, what a
// file's bytes say it is. Imports FaceCropCore only.
