// FaceCropPick: `facecrop pick`, a person's best and most varied crops, chosen from a finished
// dataset's manifest.jsonl (and embeddings.npy) without changing it. Imports FaceCropFinish
// (contact-sheet tiles), FaceCropPhoto (the main run's crop path), FaceCropVideo (ffmpeg, to
// take a video's frame again), FaceCropPeople and the layers below them.
