// FaceCropDetect: finding faces (and bodies and cat faces) in the detection decode. One
// `FaceFinder` protocol and one file per finder over CFaceDetect: the cascade ensemble, one
// cascade, the cat-face vote, the HOG bodies, YuNet, CenterFace with its crowd tiles; `Detector`,
// the worker's owner, picks its finder once. Beside them: the calibration, where the models are
// found, --person-only's rule, dlib's landmarks and descriptor (Landmarker, Embedder), and
// CropSettings(options) with the detector's defaults. A new detector is a new `FaceFinder` file
// here (and its C++ in CFaceDetect/). Imports FaceCropCore, FaceCropImaging and CFaceDetect.
