// FaceCropPhoto: one photo's stages in a worker, a file each: read, decode, detect, tags,
// place (pure), write. Videos use these stages too (FaceCropVideo); the worker that chooses
// between the two is the run's (PhotoProcessor, in FaceCropKit). Imports FaceCropCore,
// FaceCropImaging, FaceCropDetect, FaceCropOutput and FaceCropCurate.
