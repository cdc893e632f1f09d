// YuNet face detection (ONNX through cv::dnn). See include/CFaceDetectNetworks.h.
#include "network.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

using namespace cfacedetect;

extern "C" int CFaceDetect_YuNetNew(const char *path, CFaceDetect_YuNet **net, char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !net) return report(CFaceDetect_BadArgument, message, "no path");
        *net = nullptr;
        auto made = std::make_unique<CFaceDetect_YuNet>();
        made->outputs = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
                         "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};
        int status = loadNetwork(
            path, "YuNet", made->outputs, [&] { return cv::dnn::readNetFromONNX(path); }, made->net, message);
        if (status != CFaceDetect_OK) return status;
        made->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        *net = made.release();
        return CFaceDetect_OK;
    });
}

namespace {

// The faces of level `level` (0, 1, 2: strides 8, 16, 32) of the network's
// outputs `out` on a `paddedWidth` x `paddedHeight` input, scoring at least
// `threshold`, appended to `all`; false when the outputs are not the shape
// that input gives.
bool decodeLevel(const std::vector<cv::Mat> &out, int level, int paddedWidth, int paddedHeight, float threshold,
                 std::vector<CFaceDetect_YuNetFace> &all) {
    const int strides[3] = {8, 16, 32};
    int step = strides[level];
    int cols = paddedWidth / step;
    int rows = paddedHeight / step;
    const float *cls = out[level].ptr<float>();
    const float *obj = out[level + 3].ptr<float>();
    const float *bbox = out[level + 6].ptr<float>();
    const float *kps = out[level + 9].ptr<float>();
    size_t cells = static_cast<size_t>(rows) * cols;
    if (out[level].total() < cells || out[level + 3].total() < cells || out[level + 6].total() < cells * 4 ||
        out[level + 9].total() < cells * 10) {
        return false;
    }
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            size_t i = static_cast<size_t>(r) * cols + c;
            float score = std::sqrt(std::clamp(cls[i], 0.f, 1.f) * std::clamp(obj[i], 0.f, 1.f));
            if (score < threshold) continue;
            float cx = (c + bbox[i * 4]) * step;
            float cy = (r + bbox[i * 4 + 1]) * step;
            float w = std::exp(bbox[i * 4 + 2]) * step;
            float h = std::exp(bbox[i * 4 + 3]) * step;
            CFaceDetect_YuNetFace face{};
            face.x = cx - w / 2;
            face.y = cy - h / 2;
            face.width = w;
            face.height = h;
            face.score = score;
            for (int n = 0; n < 5; n++) {
                face.landmarks[2 * n] = (kps[i * 10 + 2 * n] + c) * step;
                face.landmarks[2 * n + 1] = (kps[i * 10 + 2 * n + 1] + r) * step;
            }
            all.push_back(face);
        }
    }
    return true;
}

} // namespace

extern "C" int CFaceDetect_YuNetDetect(CFaceDetect_YuNet *net, const uint8_t *rgb, int width,
                                       int height, size_t stride, float score_threshold,
                                       float nms_threshold, CFaceDetect_YuNetFace **faces,
                                       size_t *count, char **message) {
    return guarded(message, [&]() -> int {
        if (!net || !rgbArguments(rgb, width, height, stride, faces, count)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to YuNet detect");
        }
        *faces = nullptr;
        *count = 0;
        int paddedWidth = (width + 31) / 32 * 32;
        int paddedHeight = (height + 31) / 32 * 32;
        // The network was trained on BGR: swap the channels.
        net->net.setInput(paddedBlob(wrapRGB(rgb, width, height, stride), paddedWidth, paddedHeight, true));
        std::vector<cv::Mat> out;
        net->net.forward(out, net->outputs);
        std::vector<CFaceDetect_YuNetFace> all;
        for (int level = 0; level < 3; level++) {
            if (!decodeLevel(out, level, paddedWidth, paddedHeight, score_threshold, all)) {
                return report(CFaceDetect_OpenCVError, message, "unexpected YuNet output shape");
            }
        }
        return handOut(suppressed(all, score_threshold, nms_threshold), faces, count, message);
    });
}

extern "C" void CFaceDetect_YuNetClose(CFaceDetect_YuNet *net) {
    delete net;
}
