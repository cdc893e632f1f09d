// The Haar/LBP cascade handle and the level-by-level scan every cascade
// detector uses. See include/CFaceDetectCascades.h.
#include "internal.hpp"

#include <algorithm>
#include <sys/stat.h>

using namespace cfacedetect;

void cfacedetect::scanByLevel(cv::CascadeClassifier &classifier, const cv::Mat &image, double scaleFactor,
                              int minNeighbors, cv::Size minSize, cv::Size maxSize,
                              std::vector<cv::Rect> &rects, std::vector<int> &hits,
                              std::vector<double> *weights) {
    rects.clear();
    hits.clear();
    if (weights) weights->clear();
    cv::Size window = classifier.getOriginalWindowSize();
    if (window.width < 1 || window.height < 1) return;
    if (maxSize.width == 0 || maxSize.height == 0) maxSize = image.size();
    struct Window {
        cv::Rect box;
        int level;
        double weight;
    };
    std::vector<Window> raw;
    std::vector<cv::Rect> found;
    std::vector<int> levels;
    std::vector<double> sums;
    for (double factor = 1;; factor *= scaleFactor) {
        cv::Size level(cvRound(window.width * factor), cvRound(window.height * factor));
        if (level.width > maxSize.width || level.height > maxSize.height || level.width > image.cols ||
            level.height > image.rows) {
            break;
        }
        if (level.width < minSize.width || level.height < minSize.height) continue;
        if (weights) {
            classifier.detectMultiScale(image, found, levels, sums, scaleFactor, 0, 0, level, level, true);
        } else {
            classifier.detectMultiScale(image, found, levels, scaleFactor, 0, 0, level, level);
        }
        for (size_t i = 0; i < found.size(); i++) {
            raw.push_back({found[i], weights && i < levels.size() ? levels[i] : 1,
                           weights && i < sums.size() ? sums[i] : 0.0});
        }
    }
    // Workers' stripes push windows in any order; grouping is given one.
    std::sort(raw.begin(), raw.end(), [](const Window &a, const Window &b) {
        if (a.box.y != b.box.y) return a.box.y < b.box.y;
        if (a.box.x != b.box.x) return a.box.x < b.box.x;
        if (a.box.width != b.box.width) return a.box.width < b.box.width;
        return a.box.height < b.box.height;
    });
    for (const Window &w : raw) rects.push_back(w.box);
    const double groupEps = 0.2;
    if (weights) {
        for (const Window &w : raw) {
            hits.push_back(w.level);
            weights->push_back(w.weight);
        }
        cv::groupRectangles(rects, hits, *weights, minNeighbors, groupEps);
    } else {
        cv::groupRectangles(rects, hits, minNeighbors, groupEps);
    }
}


extern "C" int CFaceDetect_CascadeNew(const char *path, CFaceDetect_Cascade **cascade,
                                      char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !cascade) return report(CFaceDetect_BadArgument, message, "no path");
        *cascade = nullptr;
        // OpenCV prints to stderr for a missing file; check first and say it ourselves.
        struct stat info;
        if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_LoadFailed, message,
                          std::string("cascade file not found: ") + path);
        }
        auto *made = new CFaceDetect_Cascade();
        if (!made->classifier.load(path) || made->classifier.empty()) {
            delete made;
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not a cascade OpenCV can load: ") + path);
        }
        *cascade = made;
        return CFaceDetect_OK;
    });
}

extern "C" void CFaceDetect_CascadeWindow(const CFaceDetect_Cascade *cascade, int *width,
                                          int *height) {
    *width = 0;
    *height = 0;
    try {
        if (cascade) {
            cv::Size size = cascade->classifier.getOriginalWindowSize();
            *width = size.width;
            *height = size.height;
        }
    } catch (...) {
    }
}

extern "C" int CFaceDetect_CascadeDetect(CFaceDetect_Cascade *cascade, const uint8_t *gray,
                                         int width, int height, size_t stride,
                                         const CFaceDetect_Params *params,
                                         CFaceDetect_Box **boxes, size_t *count,
                                         char **message) {
    return guarded(message, [&]() -> int {
        if (!cascade || !gray || !params || !boxes || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) || params->scale_factor <= 1.0) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to detect");
        }
        *boxes = nullptr;
        *count = 0;
        cv::Mat image = wrapGray(gray, width, height, stride);
        cv::Mat work;
        if (params->equalize) {
            cv::equalizeHist(image, work);
        } else {
            work = image;
        }
        std::vector<cv::Rect> found;
        std::vector<int> levels;
        std::vector<double> weights;
        cv::Size minSize(params->min_side, params->min_side);
        cv::Size maxSize = params->max_side > 0 ? cv::Size(params->max_side, params->max_side)
                                                : cv::Size();
        scanByLevel(cascade->classifier, work, params->scale_factor, params->min_neighbors,
                    minSize, maxSize, found, levels, &weights);
        // With reject levels on, OpenCV still groups by min_neighbors and keeps
        // only windows that passed every stage; `weights` holds each group's
        // best final-stage sum, the confidence we report.
        std::vector<CFaceDetect_Box> kept;
        for (size_t i = 0; i < found.size(); i++) {
            CFaceDetect_Box box;
            box.x = found[i].x;
            box.y = found[i].y;
            box.width = found[i].width;
            box.height = found[i].height;
            box.score = i < weights.size() ? weights[i] : 0.0;
            kept.push_back(box);
        }
        if (kept.empty()) return CFaceDetect_OK;
        auto *out = static_cast<CFaceDetect_Box *>(std::malloc(kept.size() * sizeof(CFaceDetect_Box)));
        if (!out) return report(CFaceDetect_NoMemory, message, "out of memory");
        std::memcpy(out, kept.data(), kept.size() * sizeof(CFaceDetect_Box));
        *boxes = out;
        *count = kept.size();
        return CFaceDetect_OK;
    });
}

extern "C" void CFaceDetect_CascadeClose(CFaceDetect_Cascade *cascade) {
    delete cascade;
}
