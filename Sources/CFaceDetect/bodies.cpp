// OpenCV's HOG people detector. See include/CFaceDetectBodies.h.
#include "internal.hpp"

#include <algorithm>
#include <cmath>

using namespace cfacedetect;

extern "C" int CFaceDetect_BodiesNew(CFaceDetect_Bodies **bodies, char **message) {
    return guarded(message, [&]() -> int {
        if (!bodies) return report(CFaceDetect_BadArgument, message, "no handle");
        auto *made = new CFaceDetect_Bodies();
        made->hog.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
        *bodies = made;
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_BodiesDetect(CFaceDetect_Bodies *bodies, const uint8_t *gray, int width,
                                        int height, size_t stride, double hit_threshold,
                                        int past_frame, CFaceDetect_Box **boxes, size_t *count,
                                        char **message) {
    return guarded(message, [&]() -> int {
        if (!bodies || !gray || !boxes || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to people detect");
        }
        *boxes = nullptr;
        *count = 0;
        if (width < 64 || height < 128) return CFaceDetect_OK;
        cv::Mat image = wrapGray(gray, width, height, stride);
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        bodies->hog.detectMultiScale(image, found, weights, hit_threshold, cv::Size(8, 8),
                                     cv::Size(0, 0), 1.1, 2.0, false);
        std::vector<CFaceDetect_Box> kept;
        for (size_t i = 0; i < found.size(); i++) {
            CFaceDetect_Box box{found[i].x, found[i].y, found[i].width, found[i].height,
                                i < weights.size() ? weights[i] : 0.0};
            kept.push_back(box);
        }
        if (past_frame) {
            int longSide = std::max(width, height);
            double scale = longSide > 512 ? 512.0 / longSide : 1.0;
            cv::Mat shrunk, extended;
            if (scale < 1.0) {
                cv::resize(image, shrunk, cv::Size(), scale, scale, cv::INTER_AREA);
            } else {
                shrunk = image;
            }
            int pad = static_cast<int>(std::max(shrunk.cols, shrunk.rows) * 0.15);
            cv::copyMakeBorder(shrunk, extended, pad, 2 * pad, pad, pad, cv::BORDER_REPLICATE);
            // The repeated edges make person-like stripes: this pass needs a
            // surer margin.
            bodies->hog.detectMultiScale(extended, found, weights, std::max(hit_threshold, 0.2),
                                         cv::Size(8, 8), cv::Size(0, 0), 1.05, 2.0, false);
            for (size_t i = 0; i < found.size(); i++) {
                CFaceDetect_Box box{static_cast<int>(std::lround((found[i].x - pad) / scale)),
                                    static_cast<int>(std::lround((found[i].y - pad) / scale)),
                                    static_cast<int>(std::lround(found[i].width / scale)),
                                    static_cast<int>(std::lround(found[i].height / scale)),
                                    i < weights.size() ? weights[i] : 0.0};
                kept.push_back(box);
            }
        }
        return handOut(kept, boxes, count, message);
    });
}

extern "C" void CFaceDetect_BodiesClose(CFaceDetect_Bodies *bodies) {
    delete bodies;
}
