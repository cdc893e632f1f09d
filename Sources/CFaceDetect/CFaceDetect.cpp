// CFaceDetect: see include/CFaceDetect.h. Each extern "C" body catches every
// exception, so a failure in OpenCV arrives in Swift as a status and a message.
#include "CFaceDetect.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

struct CFaceDetect_Cascade {
    cv::CascadeClassifier classifier;
};

namespace {

int report(int status, char **message, const std::string &text) {
    if (message) {
        *message = static_cast<char *>(std::malloc(text.size() + 1));
        if (*message) std::memcpy(*message, text.c_str(), text.size() + 1);
    }
    return status;
}

// Runs `body`, turning any exception into a status and message.
template <typename Body> int guarded(char **message, Body body) {
    try {
        return body();
    } catch (const cv::Exception &e) {
        return report(CFaceDetect_OpenCVError, message, "OpenCV: " + std::string(e.what()));
    } catch (const std::bad_alloc &) {
        return report(CFaceDetect_NoMemory, message, "out of memory");
    } catch (const std::exception &e) {
        return report(CFaceDetect_OpenCVError, message, e.what());
    } catch (...) {
        return report(CFaceDetect_OpenCVError, message, "unknown C++ exception");
    }
}

} // namespace

extern "C" void CFaceDetect_SetNumThreads(int threads) {
    try {
        cv::setNumThreads(threads < 1 ? 1 : threads);
    } catch (...) {
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
        // Wraps the caller's pixels; no copy.
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
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
        cascade->classifier.detectMultiScale(work, found, levels, weights,
                                             params->scale_factor, params->min_neighbors, 0,
                                             minSize, maxSize, true);
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

extern "C" void CFaceDetect_Free(void *pointer) {
    std::free(pointer);
}
