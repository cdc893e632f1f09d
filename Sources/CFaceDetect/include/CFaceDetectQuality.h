// A face's measures for the quality record: sharpness (sharpness.cpp),
// exposure (quality.cpp), head pose (quality.cpp) and dlib's 5-point
// landmark predictor (landmarks5.cpp). Pure C; see CFaceDetect.h.
#ifndef CFACEDETECT_QUALITY_H
#define CFACEDETECT_QUALITY_H

#include "CFaceDetectCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Variance of the Laplacian of a box of 8-bit grayscale pixels, resampled to
/// 96 x 96 first so that faces of any size compare: higher is sharper.
/// Returns -1 when the box is empty or outside the image.
double CFaceDetect_Sharpness(const uint8_t *gray, int width, int height, size_t stride, int x,
                             int y, int box_width, int box_height);

/// How soft a box of 8-bit grayscale pixels is, in its own pixels: the
/// square root of the sum of squared steps between neighbours over the sum
/// of squared second differences. About 0.5 for detail at the pixel grid's
/// limit, a Gaussian blur's sigma for a blurred box, and m times the
/// original's for a box enlarged m times: so the box's side over it counts
/// the detail it holds, whatever it was enlarged by. Returns -1 when the box
/// is empty or outside the image.
double CFaceDetect_Softness(const uint8_t *gray, int width, int height, size_t stride, int x, int y,
                            int box_width, int box_height);

/// The softness above at the scale of a JPEG file's 8 x 8 blocks: the box
/// averaged over cells of `period` x `period` pixels (a block's side in
/// these pixels), measured, and multiplied by `period`. Blind to the
/// blocks' edges, which the plain measure reads as detail: about 0.7
/// `period` for a face whose detail is finer than a block, more for a
/// softer one. Returns -1 when `period` < 1 or the box holds fewer than 4 x 4
/// cells.
double CFaceDetect_BlockSoftness(const uint8_t *gray, int width, int height, size_t stride, int x, int y,
                                 int box_width, int box_height, double period);

/// A face's head pose in degrees from five points in photo pixels (10
/// floats, x then y) of a `width` x `height` photo: cv::solvePnP fits a
/// generic 3D face seen by a camera whose focal length is the photo's long
/// side. `kind` 0: the detector's points (eye centre nearer the image's left,
/// the other eye centre, nose tip, mouth corners nearer the left then the
/// right); 1: dlib's 5-point predictor's (see CFaceDetect_LandmarkerFind).
/// Yaw > 0: the face turns towards the image's right; pitch > 0: it looks
/// up; both against the line from the face to the camera. Roll > 0: the face
/// is turned clockwise in the image. A mirrored photo gives the opposite yaw
/// and roll and the same pitch.
int CFaceDetect_Pose(const float *points, int kind, int width, int height, double *yaw, double *pitch,
                     double *roll, char **message);

/// The exposure of a face box's middle (the box less a sixth at each side)
/// in 8-bit grayscale pixels: mean brightness 0...1, share of pixels at 10
/// or less (`dark`) and at 245 or more (`bright`); and `blockiness`, the mean
/// step between neighbours across the image's 8-pixel grid over the mean step
/// elsewhere, one grey level added to each (about 1 without JPEG blocks). Returns a CFaceDetect_Status (no
/// message).
int CFaceDetect_Exposure(const uint8_t *gray, int width, int height, size_t stride, int x, int y, int box_width,
                         int box_height, double *mean, double *dark, double *bright, double *blockiness);

/// dlib's 5-point landmark predictor (shape_predictor_5_face_landmarks.dat),
/// for the pose and for the face descriptor's chip (CFaceDetect_Embed).
/// Thread-safe once loaded: dlib's shape_predictor is only read when it runs,
/// so one per process serves every worker.
typedef struct CFaceDetect_Landmarker CFaceDetect_Landmarker;

int CFaceDetect_LandmarkerNew(const char *path, CFaceDetect_Landmarker **landmarker, char **message);

/// dlib's five points for the face in the box (8-bit grayscale pixels,
/// `stride` bytes a row), 10 floats in the image's pixels: outer and inner
/// corner of the eye nearer the image's right, outer and inner corner of the
/// other eye, the base of the nose. The mean of the points found on the image
/// and (mirrored back) on its mirror image, so a mirrored face gets mirrored points.
int CFaceDetect_LandmarkerFind(const CFaceDetect_Landmarker *landmarker, const uint8_t *gray, int width, int height,
                               size_t stride, int x, int y, int box_width, int box_height, float *points,
                               char **message);

void CFaceDetect_LandmarkerClose(CFaceDetect_Landmarker *landmarker);

#ifdef __cplusplus
}
#endif

#endif
