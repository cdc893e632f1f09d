// Identity: dlib's face descriptor (embed.cpp) and the nearest neighbours of
// descriptors (neighbours.cpp). Pure C; see CFaceDetect.h.
#ifndef CFACEDETECT_IDENTITY_H
#define CFACEDETECT_IDENTITY_H

#include "CFaceDetectCommon.h"
#include "CFaceDetectQuality.h"
#include "CFaceDetectRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

/// dlib's face descriptor: its ResNet (128 numbers a face; two faces of one
/// person lie within about 0.6 of each other) converted to ONNX and run on
/// ONNX Runtime, with dlib's 5-point landmark predictor (a
/// CFaceDetect_Landmarker, CFaceDetectQuality.h) to make the chip.
/// Thread-safe: several threads may describe faces at once (each run has its
/// own buffers); one for the process.
typedef struct CFaceDetect_Embedder CFaceDetect_Embedder;

/// Dimensions of a descriptor.
#define CFaceDetect_EmbeddingSize 128

/// Loads `model` (dlib-descriptor.onnx: dlib_face_recognition_resnet_model_v1
/// as ONNX, made by scripts/fetch-dlib-models) into `runtime`, which must
/// outlive it, and checks it with a pass on a grey chip.
/// CFaceDetect_LoadFailed with a message naming the file when it is missing
/// or not that network (input 1 x 3 x 150 x 150, 128 numbers out).
int CFaceDetect_EmbedderNew(CFaceDetect_OnnxRuntime *runtime, const char *model, const CFaceDetect_OnnxOptions *options,
                            CFaceDetect_Embedder **embedder, char **message);

/// The descriptor of the face in `box_*` (pixels of the given 8-bit RGB
/// image, `stride` bytes a row): the five points `landmarks` finds in the box,
/// the 150 px chip with padding 0.25 they define, and the network on it.
/// Writes CFaceDetect_EmbeddingSize floats to `out`. With `points` (NULL:
/// none), 10 floats in the image's pixels (x, y of the left-in-image eye
/// centre, the right eye centre, the nose tip, the left and right mouth
/// corners, as YuNet and CenterFace give them), the chip is made from those
/// instead: the similarity transform (least squares) that puts them where
/// they lie on average in dlib's chip; the predictor is not run (`landmarks`
/// may be NULL) and the box is unused.
int CFaceDetect_Embed(CFaceDetect_Embedder *embedder, const CFaceDetect_Landmarker *landmarks, const uint8_t *rgb,
                      int width, int height, size_t stride, double box_x, double box_y, double box_width,
                      double box_height, const float *points, float *out, char **message);

void CFaceDetect_EmbedderClose(CFaceDetect_Embedder *embedder);

/// For each of `count` vectors (`dim` floats each, one after another), its
/// `k` nearest others by Euclidean distance, nearest first and ties by lower
/// row: rows in `neighbours[i * k + j]` (-1 where there are fewer), distances
/// in `distances[i * k + j]`. Exact (every pair) up to `exact_limit` vectors;
/// above, through an HNSW graph (hnswlib; M 16, ef_construction
/// `build_effort`, 0 for the default 40; ef 64 or 4k) built in row order on
/// the calling thread from a fixed seed, then searched from `threads`
/// threads (0: one per core; each search reads the finished graph only): the
/// same answer on every run and at any thread count. `vectors` must stay
/// valid and unchanged during the call (the graph refers to it).
int CFaceDetect_Neighbours(const float *vectors, size_t count, int dim, int k, size_t exact_limit, int build_effort,
                           int threads, int32_t *neighbours, float *distances, char **message);

#ifdef __cplusplus
}
#endif

#endif
