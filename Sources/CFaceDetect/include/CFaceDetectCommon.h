// CFaceDetect's shared part: the status every call returns, the box the
// cascades and the HOG detector hand out, OpenCV's thread count, and the one
// free for whatever the shim hands out. Pure C; see CFaceDetect.h.
#ifndef CFACEDETECT_COMMON_H
#define CFACEDETECT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CFaceDetect_OK = 0,
    /// The model file is missing or OpenCV could not load it.
    CFaceDetect_LoadFailed = 1,
    /// An argument was out of range.
    CFaceDetect_BadArgument = 2,
    /// OpenCV threw (message says what).
    CFaceDetect_OpenCVError = 3,
    /// Out of memory.
    CFaceDetect_NoMemory = 4,
    /// The ONNX Runtime library is missing, or not the pinned release
    /// (CFaceDetectRuntime.h); the message names the path.
    CFaceDetect_RuntimeUnavailable = 5,
    /// ONNX Runtime returned an error (message says what).
    CFaceDetect_RuntimeError = 6,
} CFaceDetect_Status;

typedef struct {
    int x;
    int y;
    int width;
    int height;
    /// The cascade's level weight for the box: higher is more confident.
    double score;
} CFaceDetect_Box;

/// Sets OpenCV's own worker threads (1: none beyond the caller's).
void CFaceDetect_SetNumThreads(int threads);

/// Frees boxes and messages the shim handed out.
void CFaceDetect_Free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
