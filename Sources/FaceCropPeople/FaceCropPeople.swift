// FaceCropPeople: identity. embeddings.npy, the grouping rule and its neighbour search, the
// people file and naming (people.txt, Takeout names), the listing behind `facecrop people` and the
// People page, and the `people` command. A new identity rule goes here. Imports FaceCropCore,
// FaceCropImaging, FaceCropDetect (dlib's descriptor), FaceCropOutput, FaceCropCurate and
// CFaceDetect (the neighbour index).
