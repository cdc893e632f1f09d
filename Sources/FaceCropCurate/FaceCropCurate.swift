// FaceCropCurate: what a person or a rule takes out of or sorts in a dataset: rejections.txt
// and `facecrop reject`, crops deleted by hand, --dedup's near-duplicate index and step, --split,
// and the plain-text curation files' shared reading and writing (CurationFile). Imports
// FaceCropCore, FaceCropInputs and FaceCropOutput; identity is FaceCropPeople's.
