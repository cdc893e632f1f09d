// YuNet face detection (ONNX through cv::dnn). See include/CFaceDetect.h.
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <sys/stat.h>

using namespace cfacedetect;

extern "C" int CFaceDetect_YuNetNew(const char *path, CFaceDetect_YuNet **net, char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !net) return report(CFaceDetect_BadArgument, message, "no path");
        *net = nullptr;
        struct stat info;
        if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_LoadFailed, message, std::string("model file not found: ") + path);
        }
        auto *made = new CFaceDetect_YuNet();
        try {
            made->net = cv::dnn::readNetFromONNX(path);
        } catch (const cv::Exception &e) {
            delete made;
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not an ONNX model OpenCV can load: ") + path);
        }
        made->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        made->outputs = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
                         "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};
        std::vector<cv::String> names = made->net.getUnconnectedOutLayersNames();
        for (const auto &wanted : made->outputs) {
            if (std::find(names.begin(), names.end(), wanted) == names.end()) {
                delete made;
                return report(CFaceDetect_LoadFailed, message,
                              std::string("not a YuNet model (no output '") + wanted + "'): " + path);
            }
        }
        *net = made;
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_YuNetDetect(CFaceDetect_YuNet *net, const uint8_t *rgb, int width,
                                       int height, size_t stride, float score_threshold,
                                       float nms_threshold, CFaceDetect_YuNetFace **faces,
                                       size_t *count, char **message) {
    return guarded(message, [&]() -> int {
        if (!net || !rgb || !faces || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) * 3) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to YuNet detect");
        }
        *faces = nullptr;
        *count = 0;
        cv::Mat image(height, width, CV_8UC3, const_cast<uint8_t *>(rgb), stride);
        int paddedWidth = (width + 31) / 32 * 32;
        int paddedHeight = (height + 31) / 32 * 32;
        cv::Mat padded;
        cv::copyMakeBorder(image, padded, 0, paddedHeight - height, 0, paddedWidth - width,
                           cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
        // The network was trained on BGR: swap the channels.
        cv::Mat blob = cv::dnn::blobFromImage(padded, 1.0, cv::Size(), cv::Scalar(), true, false);
        net->net.setInput(blob);
        std::vector<cv::Mat> out;
        net->net.forward(out, net->outputs);
        std::vector<cv::Rect2d> boxes;
        std::vector<float> scores;
        std::vector<CFaceDetect_YuNetFace> all;
        const int strides[3] = {8, 16, 32};
        for (int level = 0; level < 3; level++) {
            int step = strides[level];
            int cols = paddedWidth / step;
            int rows = paddedHeight / step;
            const float *cls = out[level].ptr<float>();
            const float *obj = out[level + 3].ptr<float>();
            const float *bbox = out[level + 6].ptr<float>();
            const float *kps = out[level + 9].ptr<float>();
            size_t cells = static_cast<size_t>(rows) * cols;
            if (out[level].total() < cells || out[level + 3].total() < cells ||
                out[level + 6].total() < cells * 4 || out[level + 9].total() < cells * 10) {
                return report(CFaceDetect_OpenCVError, message, "unexpected YuNet output shape");
            }
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    size_t i = static_cast<size_t>(r) * cols + c;
                    float score = std::sqrt(std::clamp(cls[i], 0.f, 1.f) * std::clamp(obj[i], 0.f, 1.f));
                    if (score < score_threshold) continue;
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
                    boxes.emplace_back(face.x, face.y, w, h);
                    scores.push_back(score);
                }
            }
        }
        std::vector<int> keep;
        cv::dnn::NMSBoxes(boxes, scores, score_threshold, nms_threshold, keep);
        std::vector<CFaceDetect_YuNetFace> kept;
        for (int i : keep) kept.push_back(all[i]);
        return handOut(kept, faces, count, message);
    });
}

extern "C" void CFaceDetect_YuNetClose(CFaceDetect_YuNet *net) {
    delete net;
}
