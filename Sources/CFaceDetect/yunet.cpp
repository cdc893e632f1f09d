// YuNet face detection through ONNX Runtime (onnx.cpp's session), one
// session for every input size: the photo padded to multiples of 32, the
// network's 12 outputs decoded here. See include/CFaceDetectNetworks.h.
#include "network.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

using namespace cfacedetect;

struct CFaceDetect_YuNet {
    CFaceDetect_OnnxSession *session = nullptr;
    ~CFaceDetect_YuNet() { CFaceDetect_OnnxSessionClose(session); }
};

namespace {

// The model's outputs, in the order the decoder reads them: class score,
// objectness, box, landmarks, each at strides 8, 16 and 32.
const char *const kOutputs[12] = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
                                  "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};

// The 12 outputs of one run, freed when this goes out of scope.
struct Outputs {
    CFaceDetect_OnnxOutput out[12];
    ~Outputs() { CFaceDetect_OnnxOutputsFree(out, 12); }
};

// Runs the network on `blob` (1 x 3 x height x width floats) into `outputs`;
// throws the runtime's failure with its status.
void run(CFaceDetect_YuNet *net, const float *blob, int width, int height, Outputs &outputs) {
    char *message = nullptr;
    int status = CFaceDetect_OnnxSessionRun(net->session, blob, 3, height, width, kOutputs, 12, outputs.out, &message);
    if (status != CFaceDetect_OK) {
        std::string text = message ? message : "ONNX Runtime failed";
        std::free(message);
        throw Failure(status, text);
    }
}

// The faces of level `level` (0, 1, 2: strides 8, 16, 32) of the network's
// outputs `out` on a `paddedWidth` x `paddedHeight` input, scoring at least
// `threshold`, appended to `all`; false when the outputs are not the size
// that input gives.
bool decodeLevel(const CFaceDetect_OnnxOutput *out, int level, int paddedWidth, int paddedHeight, float threshold,
                 std::vector<CFaceDetect_YuNetFace> &all) {
    const int strides[3] = {8, 16, 32};
    int step = strides[level];
    int cols = paddedWidth / step;
    int rows = paddedHeight / step;
    const float *cls = out[level].values;
    const float *obj = out[level + 3].values;
    const float *bbox = out[level + 6].values;
    const float *kps = out[level + 9].values;
    size_t cells = static_cast<size_t>(rows) * cols;
    if (out[level].count != cells || out[level + 3].count != cells || out[level + 6].count != cells * 4 ||
        out[level + 9].count != cells * 10) {
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

// The size of one trial pass: the model's own where it declares one
// (ONNX Runtime runs no other), else a small one.
void trialSize(const int64_t *shape, int *width, int *height) {
    *width = shape[3] > 0 ? static_cast<int>(std::min<int64_t>(shape[3], 4096)) : 64;
    *height = shape[2] > 0 ? static_cast<int>(std::min<int64_t>(shape[2], 4096)) : 32;
}

// Whether the model at `path` in `net` is a YuNet model ONNX Runtime runs at
// any size: its input 1 x 3 x height x width, a trial pass giving the 12
// outputs at the sizes the decoder reads, the height and width not fixed.
// CFaceDetect_LoadFailed with a message naming the file and what is wrong.
int checkModel(CFaceDetect_YuNet *net, const char *path, char **message) {
    int64_t shape[8] = {};
    if (CFaceDetect_OnnxSessionInputShape(net->session, shape, 8) != 4) {
        return report(CFaceDetect_LoadFailed, message,
                      std::string("not a YuNet model (its input is not 1 x 3 x height x width): ") + path);
    }
    int width = 0, height = 0;
    trialSize(shape, &width, &height);
    std::vector<float> blob(static_cast<size_t>(3) * width * height, 0.f);
    Outputs outputs;
    try {
        run(net, blob.data(), width, height, outputs);
    } catch (const std::exception &e) {
        return report(CFaceDetect_LoadFailed, message, std::string("not a YuNet model (") + e.what() + "): " + path);
    }
    std::vector<CFaceDetect_YuNetFace> none;
    for (int level = 0; level < 3; level++) {
        if (width % 32 != 0 || height % 32 != 0 || !decodeLevel(outputs.out, level, width, height, 2.f, none)) {
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not a YuNet model (its outputs are not the sizes YuNet's are): ") + path);
        }
    }
    if (shape[2] > 0 || shape[3] > 0) {
        auto side = [](int64_t d) { return d > 0 ? std::to_string(d) : std::string("any"); };
        return report(CFaceDetect_LoadFailed, message,
                      std::string("a YuNet model whose input size is fixed at ") + side(shape[3]) + " x " +
                          side(shape[2]) + ", the only size ONNX Runtime runs it at: " + path);
    }
    return CFaceDetect_OK;
}

} // namespace

extern "C" int CFaceDetect_YuNetNew(CFaceDetect_OnnxRuntime *runtime, const char *path,
                                    const CFaceDetect_OnnxOptions *options, CFaceDetect_YuNet **net, char **message) {
    return guarded(message, [&]() -> int {
        if (!runtime || !path || !options || !net) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to YuNet through ONNX Runtime");
        }
        *net = nullptr;
        auto made = std::make_unique<CFaceDetect_YuNet>();
        int status = CFaceDetect_OnnxSessionNew(runtime, path, options, &made->session, message);
        if (status != CFaceDetect_OK) return status;
        status = checkModel(made.get(), path, message);
        if (status != CFaceDetect_OK) return status;
        *net = made.release();
        return CFaceDetect_OK;
    });
}

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
        cv::Mat blob = paddedBlob(wrapRGB(rgb, width, height, stride), paddedWidth, paddedHeight, true);
        Outputs outputs;
        run(net, blob.ptr<float>(), paddedWidth, paddedHeight, outputs);
        std::vector<CFaceDetect_YuNetFace> all;
        for (int level = 0; level < 3; level++) {
            if (!decodeLevel(outputs.out, level, paddedWidth, paddedHeight, score_threshold, all)) {
                return report(CFaceDetect_RuntimeError, message, "unexpected YuNet output shape");
            }
        }
        return handOut(suppressed(all, score_threshold, nms_threshold), faces, count, message);
    });
}

extern "C" void CFaceDetect_YuNetClose(CFaceDetect_YuNet *net) {
    delete net;
}
