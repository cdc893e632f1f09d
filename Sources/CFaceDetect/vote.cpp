// Several cascades voting on each box. See include/CFaceDetect.h.
#include "internal.hpp"

#include <algorithm>
#include <cmath>

using namespace cfacedetect;

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
        cv::Mat image = wrapGray(gray, width, height, stride);
        int longSide = std::max(width, height);
        double scale = params->work_side > 0 && longSide > params->work_side
                           ? static_cast<double>(params->work_side) / longSide
                           : 1.0;
        cv::Mat shrunk, work, mirrored;
        if (scale < 1.0) {
            cv::resize(image, shrunk, cv::Size(), scale, scale, cv::INTER_AREA);
        } else {
            shrunk = image;
        }
        cv::equalizeHist(shrunk, work);
        if (params->mirror) cv::flip(work, mirrored, 1);
        int minSide = static_cast<int>(params->min_side * scale);
        cv::Size minSize(minSide, minSide);
        cv::Size maxSize = params->max_side > 0 ? cv::Size(static_cast<int>(params->max_side * scale),
                                                           static_cast<int>(params->max_side * scale))
                                                : cv::Size();
        struct Voted {
            cv::Rect box;
            int votes;
            int hits;
            int lastPass;
            size_t order;
        };
        std::vector<Voted> voted;
        std::vector<cv::Rect> rects;
        std::vector<int> hits;
        int pass = 0;
        for (size_t c = 0; c < cascade_count; c++) {
            for (int side = 0; side < (params->mirror ? 2 : 1); side++, pass++) {
                scanByLevel(cascades[c]->classifier, side ? mirrored : work, params->scale_factor,
                            params->min_neighbors, minSize, maxSize, rects, hits);
                for (size_t i = 0; i < rects.size(); i++) {
                    cv::Rect r = rects[i];
                    if (side) r.x = work.cols - r.x - r.width;
                    int hit = i < hits.size() ? hits[i] : 0;
                    auto joined = std::find_if(voted.begin(), voted.end(), [&](const Voted &v) {
                        return overlap(v.box, r) > 0.4;
                    });
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
        std::sort(voted.begin(), voted.end(), [](const Voted &a, const Voted &b) {
            if (a.votes != b.votes) return a.votes > b.votes;
            if (a.hits != b.hits) return a.hits > b.hits;
            return a.order < b.order;
        });
        std::vector<CFaceDetect_VoteBox> kept;
        std::vector<cv::Rect> keptBoxes;
        for (const Voted &v : voted) {
            if (v.votes < params->min_votes) continue;
            bool shadowed = std::any_of(keptBoxes.begin(), keptBoxes.end(), [&](const cv::Rect &other) {
                double shared = (other & v.box).area();
                return shared * 4 > std::min(other.area(), v.box.area());
            });
            if (shadowed) continue;
            keptBoxes.push_back(v.box);
            kept.push_back({static_cast<int>(std::lround(v.box.x / scale)),
                            static_cast<int>(std::lround(v.box.y / scale)),
                            static_cast<int>(std::lround(v.box.width / scale)),
                            static_cast<int>(std::lround(v.box.height / scale)), v.votes, v.hits});
        }
        return handOut(kept, boxes, count, message);
    });
}
