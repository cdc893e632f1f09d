// OpenCV's cascade classifiers (cascade.cpp), the cascade ensemble
// (ensemble.cpp) and several cascades voting (vote.cpp). Pure C; see CFaceDetect.h.
#ifndef CFACEDETECT_CASCADES_H
#define CFACEDETECT_CASCADES_H

#include "CFaceDetectCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
