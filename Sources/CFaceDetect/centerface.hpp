// Internal to CFaceDetect (C++ only, not in include/): what centerface.cpp
// (the handle, ONNX Runtime's pass, the detection) and centerface_cv.cpp
// (cv::dnn's pass) share: the network's maps, a pass, and the handle.
#ifndef CFACEDETECT_CENTERFACE_HPP
#define CFACEDETECT_CENTERFACE_HPP

#include "network.hpp"

#include <functional>
#include <memory>
#include <mutex>

namespace cfacedetect::centerface {

// The four maps of one pass, each channels x rows x cols at stride 4:
// heatmap (1), log scale (height, width; in units of the stride), offset
// of the centre (y, x; in cells), landmarks (y, x pairs, in box heights and
// widths from the box's top-left corner).
struct Maps {
    const float *heat;
    const float *scale;
    const float *offset;
    const float *marks;
};

// The number of values each map must have on a canvas of `cells` cells.
constexpr size_t kMapChannels[4] = {1, 2, 2, 10};

// The model's own output names: heatmap, scale, offset, landmarks.
inline const char *const kOutputs[4] = {"537", "538", "539", "540"};

// How a handle runs the network: one pass on a padded canvas. Each runtime
// picks its canvas and keeps its own networks; the decoding of the maps
// (detectOnCanvas) is the same for all.
class Pass {
  public:
    virtual ~Pass() = default;
    // The canvas a `width` x `height` image is padded onto.
    virtual void canvas(int width, int height, int *canvasWidth, int *canvasHeight) const = 0;
    // Runs the network on `blob` (1 x 3 x canvasHeight x canvasWidth, RGB
    // 0-255) and hands its maps to `read` while they are valid.
    virtual void run(const float *blob, int canvasWidth, int canvasHeight,
                     const std::function<void(const Maps &)> &read) = 0;
    // Networks (canvas sizes) held now.
    virtual int netCount() const = 0;
};

// cv::dnn's pass (centerface_cv.cpp): a network per canvas size of the
// ladder, kept up to `maxPixels` of canvas, made from the model's bytes.
std::unique_ptr<Pass> openCVPass(std::vector<uchar> model, long maxPixels);

// What a handle's detect calls write into, kept from pass to pass and from
// photo to photo: made anew per pass (the canvas's padded copy, its float
// conversion and planes, the 320 px copy, an enlarged tile), they were
// freshly zeroed pages each time, 40 % of a 12 MP CenterFace run's page
// faults (docs/measurements.md). Each grows to the largest size asked and
// is kept at it.
struct Scratch {
    // The canvas's input planes (paddedPlanes).
    std::vector<float> blob;
    // The photo shrunk for the large faces' pass.
    cv::Mat shrunk;
    // A crowd tile enlarged.
    cv::Mat enlarged;
};

} // namespace cfacedetect::centerface

struct CFaceDetect_CenterFace {
    std::unique_ptr<cfacedetect::centerface::Pass> pass;
    // One detect call at a time: guards `scratch` (the Swift owner runs
    // one pass at a time anyway).
    std::mutex busy;
    cfacedetect::centerface::Scratch scratch;
};

#endif
