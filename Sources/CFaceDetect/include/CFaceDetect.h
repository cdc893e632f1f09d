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

/// A face candidate from the cascade ensemble, with the evidence for it, in
/// pixels of the image given to CFaceDetect_Ensemble.
typedef struct {
    int x;
    int y;
    int width;
    int height;
    /// Raw windows of the frontal cascade grouped into this box (0: not found by it).
    int frontal_hits;
    /// Raw windows of the confirming frontal cascade inside the box (0: none).
    int confirm_hits;
    /// Raw windows of the profile cascade (either side) grouped into this box.
    int profile_hits;
    /// Eyes found in the upper part of the box (0, 1 or 2).
    int eyes;
    /// Centres of the two eyes (image pixels) when `eyes` is 2: left in the image first.
    double eye1_x, eye1_y, eye2_x, eye2_y;
} CFaceDetect_Candidate;

typedef struct {
    /// Pyramid step of the full-image scans, > 1.
    double scale_factor;
    /// Smallest and largest face side searched, in pixels of the given image.
    int min_side;
    int max_side;
    /// Enlarge the image by this factor (>= 1) before searching (small photos).
    double upscale;
    /// Raw windows the frontal scan needs to keep a candidate.
    int frontal_min_neighbors;
    /// Raw windows the profile scan needs to keep a candidate.
    int profile_min_neighbors;
    /// Also search turned by +/- this many degrees (0: upright only).
    double rotation;
} CFaceDetect_EnsembleParams;

/// Finds face candidates with several cascades and gathers evidence for each:
/// `frontal` scans the whole image; `profile` (may be NULL) scans it and its
/// mirror image; `confirm` (may be NULL) is run inside each candidate; `eye`
/// and `eyeglasses` (may be NULL) look for eyes in the candidate's upper part.
/// The image is equalised first. Candidates overlapping by more than a third
/// are merged. Free `*candidates` with CFaceDetect_Free.
int CFaceDetect_Ensemble(CFaceDetect_Cascade *frontal, CFaceDetect_Cascade *profile,
                         CFaceDetect_Cascade *confirm, CFaceDetect_Cascade *eye,
                         CFaceDetect_Cascade *eyeglasses, const uint8_t *gray, int width,
                         int height, size_t stride, const CFaceDetect_EnsembleParams *params,
                         CFaceDetect_Candidate **candidates, size_t *count, char **message);

typedef struct {
    /// Pyramid step, > 1.
    double scale_factor;
    /// Raw windows each pass needs to keep a box.
    int min_neighbors;
    /// Smallest and largest box side searched, in pixels of the given image
    /// (max 0: no limit).
    int min_side;
    int max_side;
    /// Search the mirror image too, as a pass of its own.
    int mirror;
    /// Keep boxes found by at least this many passes.
    int min_votes;
    /// Shrink the image so that its long side is at most this many pixels
    /// before searching (0: search it as it is). Sizes and boxes are still in
    /// pixels of the given image.
    int work_side;
} CFaceDetect_VoteParams;

typedef struct {
    int x;
    int y;
    int width;
    int height;
    /// Passes (cascade and orientation) that found the box.
    int votes;
    /// Raw windows grouped into the box, summed over the passes.
    int hits;
} CFaceDetect_VoteBox;

/// Runs each of `cascade_count` cascades on the equalised image (and, with
/// `mirror`, on its mirror image): each is one pass. Boxes of different passes
/// overlapping by more than 0.4 IoU are one box, voted for by each pass that
/// found it. Keeps boxes with at least `min_votes` votes, most votes first,
/// dropping any box that shares more than a quarter of its area with a box
/// kept before it. Free `*boxes` with CFaceDetect_Free.
int CFaceDetect_Vote(CFaceDetect_Cascade *const *cascades, size_t cascade_count, const uint8_t *gray,
                     int width, int height, size_t stride, const CFaceDetect_VoteParams *params,
                     CFaceDetect_VoteBox **boxes, size_t *count, char **message);

/// Variance of the Laplacian of a box of 8-bit grayscale pixels, resampled to
/// 96 x 96 first so that faces of any size compare: higher is sharper.
/// Returns -1 when the box is empty or outside the image.
double CFaceDetect_Sharpness(const uint8_t *gray, int width, int height, size_t stride, int x,
                             int y, int box_width, int box_height);

/// OpenCV's HOG people detector (getDefaultPeopleDetector, 64 x 128 window).
typedef struct CFaceDetect_People CFaceDetect_People;

int CFaceDetect_PeopleNew(CFaceDetect_People **people, char **message);

/// Finds standing people in 8-bit grayscale pixels. `hit_threshold` is the SVM
/// margin (0 is OpenCV's default; higher is surer). Boxes' `score` is the margin.
/// With `past_frame`, a second pass searches a copy shrunk to at most 512 px
/// on the long side and extended past every edge (its edge pixels repeated,
/// by 15 % of the long side at the top and sides and 30 % at the bottom), so
/// that people cut by the frame at the waist or knees, or filling it, are
/// found too (with an SVM margin of at least 0.2): their boxes may reach
/// outside the image.
int CFaceDetect_PeopleDetect(CFaceDetect_People *people, const uint8_t *gray, int width,
                             int height, size_t stride, double hit_threshold, int past_frame,
                             CFaceDetect_Box **boxes, size_t *count, char **message);

void CFaceDetect_PeopleClose(CFaceDetect_People *people);

/// A YuNet face detection network (ONNX) run through cv::dnn.
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

int CFaceDetect_YuNetNew(const char *path, CFaceDetect_YuNet **net, char **message);

/// Runs the network on 8-bit RGB pixels (3 bytes a pixel, `stride` bytes a
/// row); the input is padded to a multiple of 32. Keeps faces scoring at least
/// `score_threshold` after non-maximum suppression at `nms_threshold` IoU.
int CFaceDetect_YuNetDetect(CFaceDetect_YuNet *net, const uint8_t *rgb, int width, int height,
                            size_t stride, float score_threshold, float nms_threshold,
                            CFaceDetect_YuNetFace **faces, size_t *count, char **message);

void CFaceDetect_YuNetClose(CFaceDetect_YuNet *net);

/// A CenterFace face detection network (ONNX) run through cv::dnn: a pool of
/// networks, one per canvas size in use (see CFaceDetect_CenterFaceCanvas),
/// because OpenCV 4.6 gives wrong results when one CenterFace network is run
/// at a second input size. At most `max_nets` networks live at once (more
/// only while more than `max_nets` detections run at once); the least
/// recently used idle one is dropped to make room. Thread-safe: one handle
/// may serve several threads at once, each detection checks a network out
/// of the pool for each pass. Close it only when no detection runs.
typedef struct CFaceDetect_CenterFace CFaceDetect_CenterFace;

int CFaceDetect_CenterFaceNew(const char *path, int max_nets, CFaceDetect_CenterFace **net, char **message);

/// The canvas an image of `width` x `height` is padded onto (right and
/// bottom, black) before the network sees it: the long side from a ladder
/// (320, 480, 640, 800, 1024, 1280, 1600, 2048, 2560, 3200, 4096, then
/// multiples of 1024), the short side 9/16, 3/4 or all of it (multiples of
/// 32), the smallest that holds the image, in the image's orientation.
void CFaceDetect_CenterFaceCanvas(int width, int height, int *canvas_width, int *canvas_height);

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

/// How many networks it holds now (idle and in use).
int CFaceDetect_CenterFaceNetCount(const CFaceDetect_CenterFace *net);

void CFaceDetect_CenterFaceClose(CFaceDetect_CenterFace *net);

/// dlib's face descriptor: its 5-point landmark predictor and its ResNet
/// (128 numbers a face; two faces of one person lie within about 0.6 of each
/// other). Not thread-safe: the network keeps its buffers; one per worker.
typedef struct CFaceDetect_Embedder CFaceDetect_Embedder;

/// Dimensions of a descriptor.
#define CFaceDetect_EmbeddingSize 128

/// Loads `recognition` (dlib_face_recognition_resnet_model_v1.dat) and
/// `landmarks` (shape_predictor_5_face_landmarks.dat). Sets the BLAS library's
/// own threads to 1 (OpenBLAS), as the caller's workers are the parallelism.
int CFaceDetect_EmbedderNew(const char *recognition, const char *landmarks, CFaceDetect_Embedder **embedder,
                            char **message);

/// The descriptor of the face in `box_*` (pixels of the given 8-bit RGB
/// image, `stride` bytes a row): dlib's five points found in the box, the
/// 150 px chip with padding 0.25 they define, and the network on it. Writes
/// CFaceDetect_EmbeddingSize floats to `out`. With `points` (NULL: none), 10
/// floats in the image's pixels (x, y of the left-in-image eye centre, the
/// right eye centre, the nose tip, the left and right mouth corners, as YuNet
/// and CenterFace give them), the chip is made from those instead: the
/// similarity transform (least squares) that puts them where they lie on
/// average in dlib's chip; the predictor is not run and the box is unused.
int CFaceDetect_Embed(CFaceDetect_Embedder *embedder, const uint8_t *rgb, int width, int height, size_t stride,
                      double box_x, double box_y, double box_width, double box_height, const float *points,
                      float *out, char **message);

void CFaceDetect_EmbedderClose(CFaceDetect_Embedder *embedder);

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

/// dlib's 5-point landmark predictor (shape_predictor_5_face_landmarks.dat)
/// alone. Not thread-safe: one per worker.
typedef struct CFaceDetect_Landmarker CFaceDetect_Landmarker;

int CFaceDetect_LandmarkerNew(const char *path, CFaceDetect_Landmarker **landmarker, char **message);

/// dlib's five points for the face in the box (8-bit grayscale pixels,
/// `stride` bytes a row), 10 floats in the image's pixels: outer and inner
/// corner of the eye nearer the image's right, outer and inner corner of the
/// other eye, the base of the nose. The mean of the points found on the image
/// and (mirrored back) on its mirror image, so a mirrored face gets mirrored points.
int CFaceDetect_LandmarkerFind(CFaceDetect_Landmarker *landmarker, const uint8_t *gray, int width, int height,
                               size_t stride, int x, int y, int box_width, int box_height, float *points,
                               char **message);

void CFaceDetect_LandmarkerClose(CFaceDetect_Landmarker *landmarker);

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

// MARK: XMP face regions (Exiv2)

/// The face regions of one XMP packet, as Exiv2 decoded it. Opaque, one
/// owner; freed by CFaceDetect_XmpRegionsFree.
typedef struct CFaceDetect_XmpRegions CFaceDetect_XmpRegions;

/// One region as the packet spells it: every field is the packet's text
/// (NULL where the packet has none), read and checked by the caller.
typedef struct {
    /// 0: the Metadata Working Group's (mwg-rs:RegionList, an Area whose
    /// x and y are its centre); 1: Microsoft's (MPRI:Regions, a Rectangle
    /// "left, top, width, height").
    int schema;
    /// 1-based place in its list.
    int position;
    /// mwg-rs:Name, or MPReg:PersonDisplayName.
    const char *name;
    /// mwg-rs:Type ("Face", "Pet", ...); NULL for Microsoft's.
    const char *type;
    /// mwg-rs:Area's stArea:x, y, w, h and unit.
    const char *x;
    const char *y;
    const char *w;
    const char *h;
    const char *unit;
    /// MPReg:Rectangle.
    const char *rectangle;
} CFaceDetect_XmpRegion;

/// Decodes the XMP packet `packet` (`length` bytes: embedded XMP or a whole
/// sidecar file) and collects its face regions. A packet with a DOCTYPE or
/// an entity declaration is refused before it is parsed. Returns
/// CFaceDetect_BadArgument (message says why) for a packet that is not XMP.
int CFaceDetect_XmpRegionsRead(const char *packet, size_t length, CFaceDetect_XmpRegions **regions, char **message);

size_t CFaceDetect_XmpRegionCount(const CFaceDetect_XmpRegions *regions);

/// Region `index` (< count); valid while `regions` is.
const CFaceDetect_XmpRegion *CFaceDetect_XmpRegionAt(const CFaceDetect_XmpRegions *regions, size_t index);

/// mwg-rs:AppliedToDimensions' stDim:w, stDim:h and stDim:unit (NULL each
/// where absent).
const char *CFaceDetect_XmpAppliedWidth(const CFaceDetect_XmpRegions *regions);
const char *CFaceDetect_XmpAppliedHeight(const CFaceDetect_XmpRegions *regions);
const char *CFaceDetect_XmpAppliedUnit(const CFaceDetect_XmpRegions *regions);

void CFaceDetect_XmpRegionsFree(CFaceDetect_XmpRegions *regions);

/// A named face to write: its name (UTF-8) and its area, normalised to the
/// stored pixels, centre-based as MWG says.
typedef struct {
    const char *name;
    double x;
    double y;
    double w;
    double h;
} CFaceDetect_XmpFace;

/// An XMP sidecar (a whole packet, as text) with MWG face regions for
/// `count` faces of a photo whose stored pixels are `width` x `height`.
/// The caller frees `*packet` with CFaceDetect_Free.
int CFaceDetect_XmpRegionsWrite(const CFaceDetect_XmpFace *faces, size_t count, int width, int height, char **packet,
                                char **message);

/// Frees boxes and messages the shim handed out.
void CFaceDetect_Free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
