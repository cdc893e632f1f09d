// Dense face landmarks: MediaPipe's Face Mesh network and its iris network
// as ONNX (mesh.cpp) on ONNX Runtime, run on an upright chip cut from the
// face and on each eye's cut. Pure C; see CFaceDetect.h.
#ifndef CFACEDETECT_MESH_H
#define CFACEDETECT_MESH_H

#include "CFaceDetectCommon.h"
#include "CFaceDetectRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The two networks' sessions. Thread-safe: several threads may run it at once
/// (each run has its own buffers); one for the process.
typedef struct CFaceDetect_FaceMesh CFaceDetect_FaceMesh;

/// The chip's side in pixels and the number of points the network gives.
#define CFaceDetect_FaceMeshSide 192
#define CFaceDetect_FaceMeshPoints 468
/// The points of an eye's contour and brow the iris network gives.
#define CFaceDetect_EyeContourPoints 71

/// Loads `model` (face-mesh.onnx) and `iris_model` (face-mesh-iris.onnx),
/// made by scripts/fetch-face-mesh-model, into `runtime`, which must outlive
/// them, and checks each with a pass on a grey chip. CFaceDetect_LoadFailed
/// with a message naming the file when one is missing or not that network
/// (the face: input 1 x 3 x 192 x 192, outputs "landmarks", 1404 numbers, and
/// "face_score", one; the iris: 1 x 3 x 64 x 64 in, "eye_contour", 213
/// numbers, out).
int CFaceDetect_FaceMeshNew(CFaceDetect_OnnxRuntime *runtime, const char *model, const char *iris_model,
                            const CFaceDetect_OnnxOptions *options, CFaceDetect_FaceMesh **mesh, char **message);

/// The network on the chip of the 8-bit grey image `gray` (`stride` bytes a
/// row) that `chip_to_image` maps out (6 numbers a b c d e f: the chip's
/// pixel (x, y) lies at (a x + b y + c, d x + e y + f) in the image, both in
/// pixel-centre coordinates; bilinear, edges repeated), given to the network
/// as grey in all three channels. Writes CFaceDetect_FaceMeshPoints x, y, z
/// triples in the chip's pixels to `points` and the face-presence
/// probability (0-1) to `presence`. Then the iris network on each eye, cut
/// from the image as MediaPipe cuts it (a square 2.3 times the distance
/// between the eye's corners, points 33 and 133, 362 and 263, along their
/// line; the second eye mirrored): 2 x CFaceDetect_EyeContourPoints x, y
/// pairs in the chip's pixels to `eyes`, the chip's left eye first. With
/// `eyes` NULL the iris network is not run (eyes too small to read: two of
/// the three passes saved).
int CFaceDetect_FaceMeshRun(CFaceDetect_FaceMesh *mesh, const uint8_t *gray, int width, int height, size_t stride,
                            const double *chip_to_image, float *points, float *presence, float *eyes, char **message);

void CFaceDetect_FaceMeshClose(CFaceDetect_FaceMesh *mesh);

#ifdef __cplusplus
}
#endif

#endif
