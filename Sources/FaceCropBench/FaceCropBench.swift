// FaceCropBench: made-up inputs with known answers (people, names, near-duplicates) and the
// quality record's cost, for facecrop-bench and the tests. The product does not import it.
// Imports FaceCropCore, FaceCropImaging, FaceCropDetect, FaceCropCurate and FaceCropPeople.
