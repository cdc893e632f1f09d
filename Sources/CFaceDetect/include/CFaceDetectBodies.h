// OpenCV's HOG people detector: standing people's whole bodies (bodies.cpp).
// Pure C; see CFaceDetect.h.
#ifndef CFACEDETECT_BODIES_H
#define CFACEDETECT_BODIES_H

#include "CFaceDetectCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/// OpenCV's HOG people detector (getDefaultPeopleDetector, 64 x 128 window).
typedef struct CFaceDetect_Bodies CFaceDetect_Bodies;

int CFaceDetect_BodiesNew(CFaceDetect_Bodies **bodies, char **message);

/// Finds standing people in 8-bit grayscale pixels. `hit_threshold` is the SVM
/// margin (0 is OpenCV's default; higher is surer). Boxes' `score` is the margin.
/// With `past_frame`, a second pass searches a copy shrunk to at most 512 px
/// on the long side and extended past every edge (its edge pixels repeated,
/// by 15 % of the long side at the top and sides and 30 % at the bottom), so
/// that people cut by the frame at the waist or knees, or filling it, are
/// found too (with an SVM margin of at least 0.2): their boxes may reach
/// outside the image.
int CFaceDetect_BodiesDetect(CFaceDetect_Bodies *bodies, const uint8_t *gray, int width,
                             int height, size_t stride, double hit_threshold, int past_frame,
                             CFaceDetect_Box **boxes, size_t *count, char **message);

void CFaceDetect_BodiesClose(CFaceDetect_Bodies *bodies);

#ifdef __cplusplus
}
#endif

#endif
