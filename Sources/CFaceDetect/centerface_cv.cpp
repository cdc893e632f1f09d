// CenterFace through cv::dnn (include/CFaceDetectNetworks.h's
// CFaceDetect_CenterFaceNew), kept for scripts/centerface-runtime's
// comparisons and the sanitizer harness; facecrop runs it through ONNX
// Runtime (centerface.cpp). cv::dnn (OpenCV 4.6) gives garbage when one
// network runs at a second input size, so this pass keeps a network per
// canvas size of a short ladder, up to `max_pixels` of canvas, the least
// recently used dropped first; one handle serves every worker, one pass at
// a time (docs/centerface.md, "The OpenCV 4.6 defect, and the design
// around it").

#include "centerface.hpp"

#include <fstream>
#include <iterator>
#include <list>
#include <stdexcept>

using namespace cfacedetect;
using namespace cfacedetect::centerface;

namespace {

// A network per canvas size from the ladder, kept up to a budget.
class OpenCVPass final : public Pass {
  public:
    OpenCVPass(std::vector<uchar> model, long maxPixels) : model_(std::move(model)), maxPixels_(maxPixels) {}

    void canvas(int width, int height, int *canvasWidth, int *canvasHeight) const override {
        CFaceDetect_CenterFaceCanvas(width, height, canvasWidth, canvasHeight);
    }

    void run(const float *blob, int canvasWidth, int canvasHeight,
             const std::function<void(const Maps &)> &read) override {
        // Held until the outputs are read: they are the network's own buffers.
        std::unique_lock<std::mutex> lock(passes_);
        cv::dnn::Net &net = netFor(canvasWidth, canvasHeight);
        const int dims[4] = {1, 3, canvasHeight, canvasWidth};
        net.setInput(cv::Mat(4, dims, CV_32F, const_cast<float *>(blob)));
        std::vector<cv::Mat> out;
        net.forward(out, std::vector<cv::String>(std::begin(kOutputs), std::end(kOutputs)));
        size_t cells = static_cast<size_t>(canvasWidth / 4) * (canvasHeight / 4);
        for (size_t i = 0; i < 4; i++) {
            if (out.size() != 4 || out[i].total() != cells * kMapChannels[i]) {
                throw std::runtime_error("unexpected CenterFace output shape");
            }
        }
        read(Maps{out[0].ptr<float>(), out[1].ptr<float>(), out[2].ptr<float>(), out[3].ptr<float>()});
    }

    int netCount() const override {
        std::lock_guard<std::mutex> guard(passes_);
        return static_cast<int>(nets_.size());
    }

  private:
    struct SizedNet {
        int width;
        int height;
        cv::dnn::Net net;
    };

    // The network for a canvas of `width` x `height`, most recently used
    // first from now on (made now when none is kept). Under `passes_`.
    cv::dnn::Net &netFor(int width, int height) {
        for (auto it = nets_.begin(); it != nets_.end(); ++it) {
            if (it->width == width && it->height == height) {
                nets_.splice(nets_.begin(), nets_, it);
                return nets_.front().net;
            }
        }
        long total = static_cast<long>(width) * height;
        for (const auto &kept : nets_) total += static_cast<long>(kept.width) * kept.height;
        while (!nets_.empty() && total > maxPixels_) {
            total -= static_cast<long>(nets_.back().width) * nets_.back().height;
            nets_.pop_back();
        }
        SizedNet made{width, height,
                      cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(model_.data()), model_.size())};
        made.net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made.net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        nets_.push_front(std::move(made));
        return nets_.front().net;
    }

    std::vector<uchar> model_;
    // Canvas pixels of all the networks kept, at most (one more network
    // when a pass needs it).
    long maxPixels_;
    // One pass at a time: guards `nets_` and every network in it.
    mutable std::mutex passes_;
    // One network per canvas size, most recently used first.
    std::list<SizedNet> nets_;
};

} // namespace

std::unique_ptr<Pass> cfacedetect::centerface::openCVPass(std::vector<uchar> model, long maxPixels) {
    return std::make_unique<OpenCVPass>(std::move(model), maxPixels);
}

extern "C" int CFaceDetect_CenterFaceNew(const char *path, long max_pixels, CFaceDetect_CenterFace **net,
                                         char **message) {
    return guarded(message, [&]() -> int {
        if (!path || !net || max_pixels < 1) return report(CFaceDetect_BadArgument, message, "no path");
        *net = nullptr;
        std::vector<uchar> model;
        // Load it once now, to say at once whether it is a CenterFace model.
        cv::dnn::Net probe;
        int status = loadNetwork(
            path, "CenterFace", std::vector<cv::String>(std::begin(kOutputs), std::end(kOutputs)),
            [&] {
                std::ifstream file(path, std::ios::binary);
                model.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
                return cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(model.data()), model.size());
            },
            probe, message);
        if (status != CFaceDetect_OK) return status;
        auto made = std::make_unique<CFaceDetect_CenterFace>();
        made->pass = openCVPass(std::move(model), max_pixels);
        *net = made.release();
        return CFaceDetect_OK;
    });
}
