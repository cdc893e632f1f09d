// FaceCropImaging: pixels. libvips handles (decode, cut, encode, warp; Vips.swift), the open,
// hashed photo file (PhotoBytes), crop placement and alignment to landmark templates, XMP face
// regions, the quality record measured on a decode, perceptual hashing, the shims' messages.
// Imports FaceCropCore, CVipsShim and CFaceDetect (exposure, pose and XMP are C++).
