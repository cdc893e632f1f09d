// FaceCropFinish: what is made after the crops, from the records read back one at a time:
// the dataset card and HF metadata, contact sheet, report.html and the People page, alpha clips
// (their mask and ffmpeg encoder), XMP export. Imports FaceCropVideo (its ffmpeg), FaceCropPeople,
// FaceCropCurate and the layers below them, and CVipsShim.
