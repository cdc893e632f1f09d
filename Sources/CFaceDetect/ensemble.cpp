// The cascade ensemble: full-image candidate scans, then evidence gathered
// inside each candidate (a confirming cascade, eyes). See include/CFaceDetectCascades.h.
#include "internal.hpp"

#include <algorithm>
#include <cmath>

using namespace cfacedetect;

namespace {

struct Raw {
    cv::Rect box;
    int hits;
    bool profile;
};

// The grayscale photo, enlarged by `up` and equalised, with the face sizes
// searched in its pixels.
struct Work {
    cv::Mat image;
    double up;
    cv::Size minSize;
    cv::Size maxSize;
    double scaleFactor;
};

Work prepare(const cv::Mat &image, const CFaceDetect_EnsembleParams &params) {
    Work work;
    work.up = params.upscale;
    double up = work.up;
    if (up > 1.0) {
        cv::resize(image, work.image, cv::Size(), up, up, cv::INTER_LINEAR);
    } else {
        work.image = image.clone();
    }
    cv::equalizeHist(work.image, work.image);
    int minSide = static_cast<int>(params.min_side * up);
    work.minSize = cv::Size(minSide, minSide);
    work.maxSize = params.max_side > 0 ? cv::Size(static_cast<int>(params.max_side * up),
                                                  static_cast<int>(params.max_side * up))
                                       : cv::Size();
    work.scaleFactor = params.scale_factor;
    return work;
}

// Frontal windows upright and, with `rotation`, turned by -/+ that many
// degrees (boxes moved back to upright pixels by their centres).
void scanFrontal(cv::CascadeClassifier &frontal, const Work &work, int minNeighbors, double rotation,
                 std::vector<Raw> &raws) {
    std::vector<cv::Rect> rects;
    std::vector<int> hits;
    scanByLevel(frontal, work.image, work.scaleFactor, minNeighbors, work.minSize, work.maxSize, rects,
                hits);
    for (size_t i = 0; i < rects.size(); i++) raws.push_back({rects[i], hits[i], false});
    if (rotation <= 0) return;
    cv::Point2f centre(work.image.cols / 2.0f, work.image.rows / 2.0f);
    for (double angle : {-rotation, rotation}) {
        cv::Mat turn = cv::getRotationMatrix2D(centre, angle, 1.0);
        cv::Mat turned;
        cv::warpAffine(work.image, turned, turn, work.image.size(), cv::INTER_LINEAR,
                       cv::BORDER_REPLICATE);
        cv::Mat back;
        cv::invertAffineTransform(turn, back);
        scanByLevel(frontal, turned, work.scaleFactor, minNeighbors, work.minSize, work.maxSize, rects,
                    hits);
        for (size_t i = 0; i < rects.size(); i++) {
            double cx = rects[i].x + rects[i].width / 2.0;
            double cy = rects[i].y + rects[i].height / 2.0;
            double ox = back.at<double>(0, 0) * cx + back.at<double>(0, 1) * cy + back.at<double>(0, 2);
            double oy = back.at<double>(1, 0) * cx + back.at<double>(1, 1) * cy + back.at<double>(1, 2);
            cv::Rect moved(static_cast<int>(ox - rects[i].width / 2.0),
                           static_cast<int>(oy - rects[i].height / 2.0), rects[i].width, rects[i].height);
            raws.push_back({moved, hits[i], false});
        }
    }
}

// Profile windows of the image and of its mirror image. The profile scans
// take a coarser pyramid: they only add candidates.
void scanProfile(cv::CascadeClassifier &profile, const Work &work, int minNeighbors,
                 std::vector<Raw> &raws) {
    std::vector<cv::Rect> rects;
    std::vector<int> hits;
    double coarse = work.scaleFactor * 1.1;
    scanByLevel(profile, work.image, coarse, minNeighbors, work.minSize, work.maxSize, rects, hits);
    for (size_t i = 0; i < rects.size(); i++) raws.push_back({rects[i], hits[i], true});
    cv::Mat mirrored;
    cv::flip(work.image, mirrored, 1);
    scanByLevel(profile, mirrored, coarse, minNeighbors, work.minSize, work.maxSize, rects, hits);
    for (size_t i = 0; i < rects.size(); i++) {
        cv::Rect r = rects[i];
        r.x = work.image.cols - r.x - r.width;
        raws.push_back({r, hits[i], true});
    }
}

// Merge: frontal boxes first, then by raw windows, each joins the first kept
// box it overlaps by more than a third.
void merge(std::vector<Raw> &raws, std::vector<cv::Rect> &boxes, std::vector<CFaceDetect_Candidate> &kept) {
    std::stable_sort(raws.begin(), raws.end(), [](const Raw &a, const Raw &b) {
        if (a.profile != b.profile) return !a.profile;
        return a.hits > b.hits;
    });
    for (const Raw &raw : raws) {
        size_t joined = boxes.size();
        for (size_t k = 0; k < boxes.size(); k++) {
            if (overlap(boxes[k], raw.box) > 0.33) {
                joined = k;
                break;
            }
        }
        if (joined == boxes.size()) {
            boxes.push_back(raw.box);
            CFaceDetect_Candidate made{};
            kept.push_back(made);
        }
        CFaceDetect_Candidate &c = kept[joined];
        if (raw.profile) {
            c.profile_hits = std::max(c.profile_hits, raw.hits);
        } else {
            c.frontal_hits = std::max(c.frontal_hits, raw.hits);
        }
    }
}

// The confirming cascade's best raw-window count for a box like `box` in the
// region around it, searched at a working size where the box is >= 48 px.
int confirmHits(cv::CascadeClassifier &confirm, const cv::Mat &work, const cv::Rect &box) {
    int grow = box.width / 4;
    cv::Rect around(box.x - grow, box.y - grow, box.width + 2 * grow, box.height + 2 * grow);
    around &= cv::Rect(0, 0, work.cols, work.rows);
    cv::Mat region = work(around);
    double scale = box.width < 48 ? 48.0 / box.width : 1.0;
    cv::Mat searched;
    if (scale > 1.0) {
        cv::resize(region, searched, cv::Size(), scale, scale, cv::INTER_LINEAR);
    } else {
        searched = region;
    }
    int side = static_cast<int>(box.width * scale);
    std::vector<cv::Rect> rects;
    std::vector<int> hits;
    confirm.detectMultiScale(searched, rects, hits, 1.05, 1, 0, cv::Size(side * 7 / 10, side * 7 / 10),
                             cv::Size(side * 14 / 10, side * 14 / 10));
    int best = 0;
    for (size_t i = 0; i < rects.size(); i++) {
        cv::Rect r(static_cast<int>(rects[i].x / scale) + around.x,
                   static_cast<int>(rects[i].y / scale) + around.y,
                   static_cast<int>(rects[i].width / scale), static_cast<int>(rects[i].height / scale));
        if (overlap(r, box) > 0.4) best = std::max(best, hits[i]);
    }
    return best;
}


// Finds eyes in the upper part of `face` (in `image`), searched at a working
// size where an eye is well above the eye cascade's 20 px window. Returns
// the eye centres in image pixels, at most one per half of the face.
std::vector<cv::Point2d> findEyes(cv::CascadeClassifier &eyes, const cv::Mat &image, const cv::Rect &face) {
    cv::Rect band(face.x, face.y + face.height * 15 / 100, face.width, face.height * 45 / 100);
    band &= cv::Rect(0, 0, image.cols, image.rows);
    std::vector<cv::Point2d> found;
    if (band.width < 8 || band.height < 4) return found;
    double scale = face.width < 160 ? 160.0 / face.width : 1.0;
    cv::Mat region;
    if (scale > 1.0) {
        cv::resize(image(band), region, cv::Size(), scale, scale, cv::INTER_LINEAR);
    } else {
        region = image(band);
    }
    int side = static_cast<int>(face.width * scale);
    std::vector<cv::Rect> rects;
    std::vector<int> hits;
    eyes.detectMultiScale(region, rects, hits, 1.1, 3, 0, cv::Size(side / 10, side / 10),
                          cv::Size(side * 2 / 5, side * 2 / 5));
    // Best eye in each half of the face.
    int best[2] = {-1, -1};
    for (size_t i = 0; i < rects.size(); i++) {
        double cx = rects[i].x + rects[i].width / 2.0;
        int half = cx < region.cols / 2.0 ? 0 : 1;
        if (best[half] < 0 || hits[i] > hits[best[half]]) best[half] = static_cast<int>(i);
    }
    for (int half = 0; half < 2; half++) {
        if (best[half] < 0) continue;
        const cv::Rect &r = rects[best[half]];
        found.emplace_back(band.x + (r.x + r.width / 2.0) / scale, band.y + (r.y + r.height / 2.0) / scale);
    }
    return found;
}

// Fills a candidate's evidence from inside its box (in `work` pixels) and
// puts the box back into the caller's pixels.
void gatherEvidence(CFaceDetect_Candidate &c, const cv::Rect &box, const cv::Mat &work, double up,
                    CFaceDetect_Cascade *confirm, CFaceDetect_Cascade *eye,
                    CFaceDetect_Cascade *eyeglasses) {
    if (confirm) c.confirm_hits = confirmHits(confirm->classifier, work, box);
    std::vector<cv::Point2d> eyes;
    if (eye) eyes = findEyes(eye->classifier, work, box);
    if (eyes.size() < 2 && eyeglasses) {
        std::vector<cv::Point2d> more = findEyes(eyeglasses->classifier, work, box);
        if (more.size() > eyes.size()) eyes = more;
    }
    c.eyes = static_cast<int>(eyes.size());
    if (eyes.size() == 2) {
        c.eye1_x = eyes[0].x / up;
        c.eye1_y = eyes[0].y / up;
        c.eye2_x = eyes[1].x / up;
        c.eye2_y = eyes[1].y / up;
    }
    c.x = static_cast<int>(std::lround(box.x / up));
    c.y = static_cast<int>(std::lround(box.y / up));
    c.width = static_cast<int>(std::lround(box.width / up));
    c.height = static_cast<int>(std::lround(box.height / up));
}

} // namespace

extern "C" int CFaceDetect_Ensemble(CFaceDetect_Cascade *frontal, CFaceDetect_Cascade *profile,
                                    CFaceDetect_Cascade *confirm, CFaceDetect_Cascade *eye,
                                    CFaceDetect_Cascade *eyeglasses, const uint8_t *gray,
                                    int width, int height, size_t stride,
                                    const CFaceDetect_EnsembleParams *params,
                                    CFaceDetect_Candidate **candidates, size_t *count,
                                    char **message) {
    return guarded(message, [&]() -> int {
        if (!frontal || !gray || !params || !candidates || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) || params->scale_factor <= 1.0 ||
            params->upscale < 1.0) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to ensemble");
        }
        *candidates = nullptr;
        *count = 0;
        Work work = prepare(wrapGray(gray, width, height, stride), *params);
        std::vector<Raw> raws;
        scanFrontal(frontal->classifier, work, params->frontal_min_neighbors, params->rotation, raws);
        if (profile) scanProfile(profile->classifier, work, params->profile_min_neighbors, raws);
        std::vector<cv::Rect> boxes;
        std::vector<CFaceDetect_Candidate> kept;
        merge(raws, boxes, kept);
        for (size_t k = 0; k < kept.size(); k++) {
            gatherEvidence(kept[k], boxes[k], work.image, work.up, confirm, eye, eyeglasses);
        }
        return handOut(kept, candidates, count, message);
    });
}
