// The face detection networks, YuNet (yunet.cpp) through ONNX Runtime and
// CenterFace (centerface.cpp) through ONNX Runtime or cv::dnn, which hand
// out the same face record. Pure C; see CFaceDetect.h.
#ifndef CFACEDETECT_NETWORKS_H
#define CFACEDETECT_NETWORKS_H

#include "CFaceDetectCommon.h"
#include "CFaceDetectRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A YuNet face detection network (ONNX) run through ONNX Runtime
/// (CFaceDetectRuntime.h): one session for every input size. Thread-safe,
/// and passes may run at once (each with its own buffers).
typedef struct CFaceDetect_YuNet CFaceDetect_YuNet;

typedef struct {
    float x;
    float y;
    float width;
    float height;
    float score;
    /// Right eye, left eye (of the person), nose tip, mouth corners: x, y pairs.
    float landmarks[10];
} CFaceDetect_YuNetFace;

/// `path`: a YuNet model whose input height and width are left open
/// (scripts/fetch-yunet makes models/yunet-any.onnx from the shipped one,
/// which declares 640 x 640). `runtime` must outlive it.
/// CFaceDetect_LoadFailed with a message naming the file when it is missing,
/// no YuNet model, or one whose input size is fixed.
int CFaceDetect_YuNetNew(CFaceDetect_OnnxRuntime *runtime, const char *path, const CFaceDetect_OnnxOptions *options,
                         CFaceDetect_YuNet **net, char **message);

/// Runs the network on 8-bit RGB pixels (3 bytes a pixel, `stride` bytes a
/// row); the input is padded to a multiple of 32. Keeps faces scoring at least
/// `score_threshold` after non-maximum suppression at `nms_threshold` IoU.
int CFaceDetect_YuNetDetect(CFaceDetect_YuNet *net, const uint8_t *rgb, int width, int height,
                            size_t stride, float score_threshold, float nms_threshold,
                            CFaceDetect_YuNetFace **faces, size_t *count, char **message);

void CFaceDetect_YuNetClose(CFaceDetect_YuNet *net);

/// A CenterFace face detection network (ONNX) run through cv::dnn: one
/// network per canvas size in use (see CFaceDetect_CenterFaceCanvas), because
/// OpenCV 4.6 gives wrong results when one CenterFace network is run at a
/// second input size. Thread-safe: one handle serves every thread of a
/// process, and its passes take turns (one runs at a time), so a network's
/// buffers exist once however many threads detect. Networks are kept up to
/// `max_pixels` of canvas in all (width x height summed; one more when a
/// pass needs it); the least recently used are dropped to make room. Close
/// it only when no detection runs.
typedef struct CFaceDetect_CenterFace CFaceDetect_CenterFace;

int CFaceDetect_CenterFaceNew(const char *path, long max_pixels, CFaceDetect_CenterFace **net, char **message);

/// The canvases of a CenterFace handle through ONNX Runtime.
typedef enum {
    /// The ladder of CFaceDetect_CenterFaceCanvas, as through cv::dnn: the
    /// same faces as cv::dnn's (dev set: the same precision and recall).
    CFaceDetect_CanvasLadder = 0,
    /// The image padded to multiples of 32 only: less to compute for sizes
    /// between the ladder's steps (a 416 x 416 photo: 416 x 416, not 480 x 480).
    CFaceDetect_CanvasTight = 1,
} CFaceDetect_CanvasKind;

/// The same detector through ONNX Runtime (CFaceDetectRuntime.h): one
/// session for every input size (it runs any size correctly), canvases of
/// `canvas` kind. `path`: a CenterFace model ONNX Runtime can run at any
/// size (scripts/make-centerface-models: fp32 or int8). Thread-safe, and
/// passes may run at once (each with its own buffers: memory grows with the
/// passes at once). `runtime` must outlive it. CFaceDetect_LoadFailed when
/// the file is missing or is no CenterFace model.
int CFaceDetect_CenterFaceNewOnnx(CFaceDetect_OnnxRuntime *runtime, const char *path,
                                  const CFaceDetect_OnnxOptions *options, CFaceDetect_CanvasKind canvas,
                                  CFaceDetect_CenterFace **net, char **message);

/// The canvas an image of `width` x `height` is padded onto (right and
/// bottom, black) before the network sees it: the long side from a ladder
/// (320, 480, 640, 800, 1024, 1280, 1600, 2048, 2560, 3200, 4096, then
/// multiples of 1024), the short side 9/16, 3/4 or all of it (multiples of
/// 32), the smallest that holds the image, in the image's orientation.
void CFaceDetect_CenterFaceCanvas(int width, int height, int *canvas_width, int *canvas_height);

/// The canvas `net` pads an image of `width` x `height` onto: the ladder
/// above, or multiples of 32 (CFaceDetect_CanvasTight).
void CFaceDetect_CenterFaceCanvasOf(const CFaceDetect_CenterFace *net, int width, int height, int *canvas_width,
                                    int *canvas_height);

/// Runs the network on 8-bit RGB pixels (3 bytes a pixel, `stride` bytes a
/// row) padded onto their canvas. Keeps faces whose heatmap peak is at
/// least `score_threshold` (> 0) and whose centre is in the image, after
/// non-maximum suppression at `nms_threshold` IoU; boxes are clipped to the
/// image. When the long side is over 400 px, faces of a fifth of it or more
/// (and at least 192 px) come from a second pass on a copy shrunk to 320 px instead (the
/// network's boxes for faces over ~250 px are wrong). The landmarks are in the network's order (left eye in the image,
/// right eye, nose tip, mouth corners left then right in the image, for an
/// upright face). Free `*faces` with CFaceDetect_Free.
int CFaceDetect_CenterFaceDetect(CFaceDetect_CenterFace *net, const uint8_t *rgb, int width, int height,
                                 size_t stride, float score_threshold, float nms_threshold,
                                 CFaceDetect_YuNetFace **faces, size_t *count, char **message);

/// One pass (no large-face pass, no suppression) on the `region_width` x
/// `region_height` region at (`x`, `y`) of the image, enlarged by `factor`
/// (1 to 8, bilinear) and padded onto its canvas: faces whose heatmap peak is
/// at least `score_threshold` and whose centre is in the region, boxes
/// clipped to the region, in the image's pixels. For tiles over a crowd.
/// Free `*faces` with CFaceDetect_Free.
int CFaceDetect_CenterFaceDetectRegion(CFaceDetect_CenterFace *net, const uint8_t *rgb, int width, int height,
                                       size_t stride, int x, int y, int region_width, int region_height,
                                       double factor, float score_threshold, CFaceDetect_YuNetFace **faces,
                                       size_t *count, char **message);

/// How many networks it holds now (1 through ONNX Runtime).
int CFaceDetect_CenterFaceNetCount(const CFaceDetect_CenterFace *net);

void CFaceDetect_CenterFaceClose(CFaceDetect_CenterFace *net);

#ifdef __cplusplus
}
#endif

#endif
