// FaceCropVideo: videos as a source: ffmpeg located and probed (ToolProcess starts it and
// ffprobe, for this target and for the clips of FaceCropFinish), frames sampled and read,
// faces tracked, the video stage of a worker (VideoStage: probe and limits, FirstRead, the tracks'
// choice, SecondRead) and the cores it borrows. A new sampling mode goes here (VideoSampling,
// FrameReader). Imports FaceCropPhoto's stages and the layers below it, and CVipsShim.
