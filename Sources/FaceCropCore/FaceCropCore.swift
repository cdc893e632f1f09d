// FaceCropCore: what every layer shares, and nothing that does work: the typed records
// (PhotoRecord with its FaceRecords, RunCounts, capture times, embeddings, the quality record and
// its score), FaceCropError and the exit statuses, geometry (PixelRect, Affine2D, landmarks),
// the settings values (Options, CropSettings and their enums), the photo's path record, JSON and
// its reading, atomic files, the stop request, the terminal, the option vocabulary that commands
// are parsed with. Imports no target of ours: every other target may import it.
