// Internal to CFaceDetect (C++ only, not part of the public C header): what
// the two face detection networks, YuNet (yunet.cpp) and CenterFace
// (centerface.cpp), share: the caller's RGB pixels as a padded input blob,
// and the faces' suppression and hand-out; and CenterFace's cv::dnn loading.
#ifndef CFACEDETECT_NETWORK_HPP
#define CFACEDETECT_NETWORK_HPP

#include "internal.hpp"

#include <algorithm>
#include <sys/stat.h>

namespace cfacedetect {

// Checks a network's model and loads it: `path` must be a regular file,
// `read` (which returns the cv::dnn::Net) must not throw cv::Exception, and
// the network must have every output in `outputs`; `name` ("YuNet") is the
// model's name in the messages. On failure the status is
// CFaceDetect_LoadFailed with a message naming the file.
template <typename Read>
int loadNetwork(const char *path, const char *name, const std::vector<cv::String> &outputs, Read read,
                cv::dnn::Net &net, char **message) {
    struct stat info;
    if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
        return report(CFaceDetect_LoadFailed, message, std::string("model file not found: ") + path);
    }
    try {
        net = read();
    } catch (const cv::Exception &e) {
        return report(CFaceDetect_LoadFailed, message, std::string("not an ONNX model OpenCV can load: ") + path);
    }
    std::vector<cv::String> names = net.getUnconnectedOutLayersNames();
    for (const auto &wanted : outputs) {
        if (std::find(names.begin(), names.end(), wanted) == names.end()) {
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not a ") + name + " model (no output '" + wanted + "'): " + path);
        }
    }
    return CFaceDetect_OK;
}

// Whether a detect call's RGB arguments are usable: pixels, somewhere for
// the faces, and at least 3 bytes a pixel in a row.
inline bool rgbArguments(const uint8_t *rgb, int width, int height, size_t stride, CFaceDetect_YuNetFace **faces,
                         size_t *count) {
    return rgb && faces && count && width >= 1 && height >= 1 && stride >= static_cast<size_t>(width) * 3;
}

// Wraps the caller's 8-bit RGB pixels; no copy.
inline cv::Mat wrapRGB(const uint8_t *rgb, int width, int height, size_t stride) {
    return cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb), stride);
}

// `image` padded (right and bottom, black) to `width` x `height`, as a
// network's input blob, its values as they are; `swapRB`: as BGR, for a
// network trained on it.
inline cv::Mat paddedBlob(const cv::Mat &image, int width, int height, bool swapRB) {
    cv::Mat padded;
    cv::copyMakeBorder(image, padded, 0, height - image.rows, 0, width - image.cols, cv::BORDER_CONSTANT,
                       cv::Scalar(0, 0, 0));
    return cv::dnn::blobFromImage(padded, 1.0, cv::Size(), cv::Scalar(), swapRB, false);
}

// The same values as paddedBlob's (three planes of `width` x `height`
// floats, the padding 0), written into `blob`, which the caller keeps from
// pass to pass: grown when a larger canvas comes, never shrunk, so that a
// pass writes into pages it has already (paddedBlob's three full-size
// copies per pass were fresh ones). Returns its first value.
inline float *paddedPlanes(const cv::Mat &image, int width, int height, bool swapRB, std::vector<float> &blob) {
    const size_t plane = static_cast<size_t>(width) * height;
    if (blob.size() < 3 * plane) {
        blob.clear();
        blob.shrink_to_fit();
        blob.resize(3 * plane);
    }
    // Each row read once, into the three planes' rows.
    float *planes[3] = {blob.data(), blob.data() + plane, blob.data() + 2 * plane};
    if (swapRB) std::swap(planes[0], planes[2]);
    for (int y = 0; y < image.rows; y++) {
        const uint8_t *row = image.ptr<uint8_t>(y);
        const size_t at = static_cast<size_t>(y) * width;
        float *r = planes[0] + at, *g = planes[1] + at, *b = planes[2] + at;
        for (int x = 0; x < image.cols; x++) {
            r[x] = row[3 * x];
            g[x] = row[3 * x + 1];
            b[x] = row[3 * x + 2];
        }
        for (float *line : planes) std::fill(line + at + image.cols, line + at + width, 0.f);
    }
    for (float *p : planes) std::fill(p + static_cast<size_t>(image.rows) * width, p + plane, 0.f);
    return blob.data();
}

// The faces of `all` kept by non-maximum suppression (cv::dnn::NMSBoxes at
// `nms_threshold` IoU, scores at least `score_threshold`), in its order.
inline std::vector<CFaceDetect_YuNetFace> suppressed(const std::vector<CFaceDetect_YuNetFace> &all,
                                                     float score_threshold, float nms_threshold) {
    std::vector<cv::Rect2d> boxes;
    std::vector<float> scores;
    for (const auto &f : all) {
        boxes.emplace_back(f.x, f.y, f.width, f.height);
        scores.push_back(f.score);
    }
    std::vector<int> keep;
    cv::dnn::NMSBoxes(boxes, scores, score_threshold, nms_threshold, keep);
    std::vector<CFaceDetect_YuNetFace> kept;
    for (int i : keep) kept.push_back(all[i]);
    return kept;
}

} // namespace cfacedetect

#endif
