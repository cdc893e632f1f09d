// CFaceDetect: OpenCV object detection behind a pure-C header.
//
// It exists because Swift cannot call OpenCV's C++ API, and C++ exceptions must
// never cross into Swift: every function returns a status, and on failure a
// message the caller owns (free it with CFaceDetect_Free). This header includes
// no OpenCV header; a detector is an opaque handle with one owner.
#ifndef CFACEDETECT_H
#define CFACEDETECT_H

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
} CFaceDetect_Status;

/// A cv::CascadeClassifier. Not thread-safe: use one per thread at a time.
typedef struct CFaceDetect_Cascade CFaceDetect_Cascade;

typedef struct {
    /// Image pyramid step, > 1 (e.g. 1.1).
    double scale_factor;
    /// Overlapping raw hits needed to keep a box.
    int min_neighbors;
    /// Smallest and largest box side searched, in pixels of the given image
    /// (max 0: no limit).
    int min_side;
    int max_side;
    /// Equalise the histogram before detecting.
    int equalize;
} CFaceDetect_Params;

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

int CFaceDetect_CascadeNew(const char *path, CFaceDetect_Cascade **cascade, char **message);

/// The size of the cascade's detection window (e.g. 20 x 20).
void CFaceDetect_CascadeWindow(const CFaceDetect_Cascade *cascade, int *width, int *height);

/// Finds objects in 8-bit grayscale pixels (`stride` bytes per row). Boxes are
/// returned in `*boxes` (free with CFaceDetect_Free), `*count` of them.
int CFaceDetect_CascadeDetect(CFaceDetect_Cascade *cascade, const uint8_t *gray, int width,
                              int height, size_t stride, const CFaceDetect_Params *params,
                              CFaceDetect_Box **boxes, size_t *count, char **message);

void CFaceDetect_CascadeClose(CFaceDetect_Cascade *cascade);

/// Frees boxes and messages the shim handed out.
void CFaceDetect_Free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
