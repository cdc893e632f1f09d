// Internal to CFaceDetect (not part of the public C header): the handles'
// C++ bodies and the helpers the detector files share. Each extern "C" body
// catches every exception (through `guarded`), so a failure in OpenCV arrives
// in Swift as a status and a message.
#ifndef CFACEDETECT_INTERNAL_HPP
#define CFACEDETECT_INTERNAL_HPP

#include "CFaceDetect.h"
#include "status.hpp"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

struct CFaceDetect_Cascade {
    cv::CascadeClassifier classifier;
};

struct CFaceDetect_Bodies {
    cv::HOGDescriptor hog;
};

namespace cfacedetect {

// Runs `body`, turning any exception into a status and message: OpenCV's
// with "OpenCV: " before its words, the others as `guardedAs` says.
template <typename Body> int guarded(char **message, Body body) {
    return guardedAs(CFaceDetect_OpenCVError, "", message, [&]() -> int {
        try {
            return body();
        } catch (const cv::Exception &e) {
            return report(CFaceDetect_OpenCVError, message, "OpenCV: " + std::string(e.what()));
        }
    });
}

template <typename T> int handOut(const std::vector<T> &kept, T **out, size_t *count, char **message) {
    if (kept.empty()) return CFaceDetect_OK;
    auto *made = static_cast<T *>(std::malloc(kept.size() * sizeof(T)));
    if (!made) return report(CFaceDetect_NoMemory, message, "out of memory");
    std::memcpy(made, kept.data(), kept.size() * sizeof(T));
    *out = made;
    *count = kept.size();
    return CFaceDetect_OK;
}

inline double overlap(const cv::Rect &a, const cv::Rect &b) {
    double inter = (a & b).area();
    double united = a.area() + b.area() - inter;
    return united > 0 ? inter / united : 0;
}

// OpenCV's detectMultiScale builds the integral images of every pyramid
// level before it scans (about 46 MB for a 1008 x 756 photo and a 20 px
// window, three quarters of it in the first octave), and two workers scanning
// at once doubled that. This scans one level at a time instead (minSize =
// maxSize = that level's window, the same scale factors OpenCV steps
// through), so at most one level's tables exist, about 8 MB at 1008 x 756.
// The raw windows of all levels are put in one fixed order and grouped as
// detectMultiScale groups them (eps 0.2). With `weights`, only
// windows that passed every stage are kept, with their final-stage sums.
void scanByLevel(cv::CascadeClassifier &classifier, const cv::Mat &image, double scaleFactor,
                 int minNeighbors, cv::Size minSize, cv::Size maxSize, std::vector<cv::Rect> &rects,
                 std::vector<int> &hits, std::vector<double> *weights = nullptr);

// Wraps the caller's 8-bit grayscale pixels; no copy.
inline cv::Mat wrapGray(const uint8_t *gray, int width, int height, size_t stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
}

} // namespace cfacedetect

#endif
