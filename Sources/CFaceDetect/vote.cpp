// Several cascades voting on each box. See include/CFaceDetectCascades.h.
#include "internal.hpp"

#include <algorithm>
#include <cmath>

using namespace cfacedetect;

namespace {

// A box and the passes that found it.
struct Voted {
    cv::Rect box;
    int votes;
    int hits;
    int lastPass;
    size_t order;
};

// The image the passes search: shrunk by `scale` first when it is below 1,
// then equalised.
cv::Mat workImage(const cv::Mat &image, double scale) {
    cv::Mat shrunk, work;
    if (scale < 1.0) {
        cv::resize(image, shrunk, cv::Size(), scale, scale, cv::INTER_AREA);
    } else {
        shrunk = image;
    }
    cv::equalizeHist(shrunk, work);
    return work;
}

// Runs every pass on `work` (each cascade, and with `mirror` each on the
// mirror image too): a box overlapping by more than 0.4 IoU a box an earlier
// box made is a vote for it (one a pass), else a box of its own; in the
// order found. Sizes are the caller's, times `scale`.
std::vector<Voted> castVotes(CFaceDetect_Cascade *const *cascades, size_t cascade_count, const cv::Mat &work,
                             const CFaceDetect_VoteParams &params, double scale) {
    cv::Mat mirrored;
    if (params.mirror) cv::flip(work, mirrored, 1);
    int minSide = static_cast<int>(params.min_side * scale);
    cv::Size minSize(minSide, minSide);
    cv::Size maxSize = params.max_side > 0 ? cv::Size(static_cast<int>(params.max_side * scale),
                                                      static_cast<int>(params.max_side * scale))
                                           : cv::Size();
    std::vector<Voted> voted;
    std::vector<cv::Rect> rects;
    std::vector<int> hits;
    int pass = 0;
    for (size_t c = 0; c < cascade_count; c++) {
        for (int side = 0; side < (params.mirror ? 2 : 1); side++, pass++) {
            scanByLevel(cascades[c]->classifier, side ? mirrored : work, params.scale_factor, params.min_neighbors,
                        minSize, maxSize, rects, hits);
            for (size_t i = 0; i < rects.size(); i++) {
                cv::Rect r = rects[i];
                if (side) r.x = work.cols - r.x - r.width;
                int hit = i < hits.size() ? hits[i] : 0;
                auto joined = std::find_if(voted.begin(), voted.end(),
                                           [&](const Voted &v) { return overlap(v.box, r) > 0.4; });
                if (joined == voted.end()) {
                    voted.push_back({r, 1, hit, pass, voted.size()});
                } else {
                    if (joined->lastPass != pass) joined->votes++;
                    joined->lastPass = pass;
                    joined->hits += hit;
                }
            }
        }
    }
    return voted;
}

// The boxes with at least `minVotes` votes, most votes first (then most raw
// windows, then first found), leaving out any box that shares more than a
// quarter of its area with a box kept before it; in pixels of the image
// before it was shrunk by `scale`.
std::vector<CFaceDetect_VoteBox> keptBoxes(std::vector<Voted> voted, int minVotes, double scale) {
    std::sort(voted.begin(), voted.end(), [](const Voted &a, const Voted &b) {
        if (a.votes != b.votes) return a.votes > b.votes;
        if (a.hits != b.hits) return a.hits > b.hits;
        return a.order < b.order;
    });
    std::vector<CFaceDetect_VoteBox> kept;
    std::vector<cv::Rect> keptRects;
    for (const Voted &v : voted) {
        if (v.votes < minVotes) continue;
        bool shadowed = std::any_of(keptRects.begin(), keptRects.end(), [&](const cv::Rect &other) {
            double shared = (other & v.box).area();
            return shared * 4 > std::min(other.area(), v.box.area());
        });
        if (shadowed) continue;
        keptRects.push_back(v.box);
        kept.push_back({static_cast<int>(std::lround(v.box.x / scale)), static_cast<int>(std::lround(v.box.y / scale)),
                        static_cast<int>(std::lround(v.box.width / scale)),
                        static_cast<int>(std::lround(v.box.height / scale)), v.votes, v.hits});
    }
    return kept;
}

} // namespace

extern "C" int CFaceDetect_Vote(CFaceDetect_Cascade *const *cascades, size_t cascade_count,
                                const uint8_t *gray, int width, int height, size_t stride,
                                const CFaceDetect_VoteParams *params, CFaceDetect_VoteBox **boxes,
                                size_t *count, char **message) {
    return guarded(message, [&]() -> int {
        if (!cascades || cascade_count == 0 || cascade_count > 16 || !gray || !params || !boxes ||
            !count || width < 1 || height < 1 || stride < static_cast<size_t>(width) ||
            params->scale_factor <= 1.0) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to vote");
        }
        for (size_t c = 0; c < cascade_count; c++) {
            if (!cascades[c]) return report(CFaceDetect_BadArgument, message, "no cascade");
        }
        *boxes = nullptr;
        *count = 0;
        int longSide = std::max(width, height);
        double scale = params->work_side > 0 && longSide > params->work_side
                           ? static_cast<double>(params->work_side) / longSide
                           : 1.0;
        cv::Mat work = workImage(wrapGray(gray, width, height, stride), scale);
        std::vector<Voted> voted = castVotes(cascades, cascade_count, work, *params, scale);
        return handOut(keptBoxes(std::move(voted), params->min_votes, scale), boxes, count, message);
    });
}
