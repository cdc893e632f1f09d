// dlib's face descriptor (see include/CFaceDetectIdentity.h): dlib's chip,
// made from its 5-point predictor (or the detector's points), and dlib's
// face recognition ResNet converted to ONNX (models/dlib-descriptor.onnx,
// made from dlib's own file by scripts/fetch-dlib-models) on ONNX Runtime
// (onnx.cpp): the same 128 numbers as dlib's network to about 1e-6, with
// 2.9 times less CPU a face, and one session for every worker
// (docs/people.md, "The descriptor on ONNX Runtime").
#include "CFaceDetect.h"
#include "landmarks5.hpp"
#include "status.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dlib/image_processing.h>
#include <dlib/image_transforms.h>

namespace {

using cfacedetect::report;

template <typename Body> int guardedDlib(char **message, Body body) {
    return cfacedetect::guardedAs(CFaceDetect_OpenCVError, "dlib: ", message, body);
}

// Where the five points YuNet and CenterFace give (eye centres, nose tip,
// mouth corners, in FaceLandmarks' order: the eye nearer the image's left
// first) lie on average in dlib's own 150 px chip with padding 0.25, the chip
// get_face_chip_details makes from its 5-point predictor's parts: measured by
// scripts/chip-template on the people dev set's and Fixtures' faces (see
// docs/people.md, "Which landmarks make the chip").
const double chipTemplate[10] = {45.90, 47.45, 101.08, 46.95, 73.41, 79.19, 50.19, 105.20, 96.91, 104.59};

} // namespace

// The network's session: the 5-point predictor is the caller's (a
// CFaceDetect_Landmarker, shared), given to each CFaceDetect_Embed.
struct CFaceDetect_Embedder {
    CFaceDetect_OnnxSession *session = nullptr;

    ~CFaceDetect_Embedder() { CFaceDetect_OnnxSessionClose(session); }
};

namespace {

// The model's input and output, as scripts/descriptor_model.py names them.
constexpr int chipSide = 150;
const char *const descriptorOutput = "descriptor";

// The descriptor of `chip` (150 x 150 RGB) through the session: the chip as
// RGB 0-255 floats, planar; the model subtracts dlib's channel means itself.
int describe(CFaceDetect_Embedder *embedder, const dlib::matrix<dlib::rgb_pixel> &chip, float *out, char **message) {
    std::vector<float> planes(static_cast<size_t>(3) * chipSide * chipSide);
    const size_t plane = static_cast<size_t>(chipSide) * chipSide;
    for (long y = 0; y < chipSide; y++) {
        for (long x = 0; x < chipSide; x++) {
            size_t at = static_cast<size_t>(y) * chipSide + x;
            planes[at] = chip(y, x).red;
            planes[plane + at] = chip(y, x).green;
            planes[2 * plane + at] = chip(y, x).blue;
        }
    }
    CFaceDetect_OnnxOutput output{};
    int status = CFaceDetect_OnnxSessionRun(embedder->session, planes.data(), 3, chipSide, chipSide,
                                            &descriptorOutput, 1, &output, message);
    if (status == CFaceDetect_OK && output.count != CFaceDetect_EmbeddingSize) {
        status = report(CFaceDetect_RuntimeError, message, "the network gave no 128-number descriptor");
    }
    if (status == CFaceDetect_OK) std::copy(output.values, output.values + output.count, out);
    CFaceDetect_OnnxOutputsFree(&output, 1);
    return status;
}

} // namespace

extern "C" int CFaceDetect_EmbedderNew(CFaceDetect_OnnxRuntime *runtime, const char *model,
                                       const CFaceDetect_OnnxOptions *options, CFaceDetect_Embedder **embedder,
                                       char **message) {
    return guardedDlib(message, [&]() -> int {
        if (!runtime || !model || !options || !embedder) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the face descriptor");
        }
        *embedder = nullptr;
        auto made = std::make_unique<CFaceDetect_Embedder>();
        int status = CFaceDetect_OnnxSessionNew(runtime, model, options, &made->session, message);
        if (status != CFaceDetect_OK) return status;
        // A trial pass on a grey chip: a model that is not the descriptor
        // (another input size, no 128-number output) is refused now.
        int64_t shape[8] = {};
        dlib::matrix<dlib::rgb_pixel> grey(chipSide, chipSide);
        grey = dlib::rgb_pixel(128, 128, 128);
        float out[CFaceDetect_EmbeddingSize];
        char *why = nullptr;
        if (CFaceDetect_OnnxSessionInputShape(made->session, shape, 8) != 4 || shape[1] != 3 ||
            shape[2] != chipSide || shape[3] != chipSide || describe(made.get(), grey, out, &why) != CFaceDetect_OK) {
            std::string reason = why ? std::string(" (") + why + ")" : std::string();
            CFaceDetect_Free(why);
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not dlib's face descriptor as ONNX (1 x 3 x 150 x 150 in, 128 numbers out)") +
                              reason + ": " + model);
        }
        *embedder = made.release();
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_Embed(CFaceDetect_Embedder *embedder, const CFaceDetect_Landmarker *landmarks,
                                 const uint8_t *rgb, int width, int height, size_t stride, double box_x, double box_y,
                                 double box_width, double box_height, const float *points, float *out,
                                 char **message) {
    return guardedDlib(message, [&]() -> int {
        if (!embedder || (!points && !landmarks) || !rgb || !out || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width) * 3 || !(box_width > 0) || !(box_height > 0)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to embed");
        }
        dlib::matrix<dlib::rgb_pixel> image(height, width);
        for (int y = 0; y < height; y++) {
            const uint8_t *row = rgb + static_cast<size_t>(y) * stride;
            for (int x = 0; x < width; x++) {
                image(y, x) = dlib::rgb_pixel(row[3 * x], row[3 * x + 1], row[3 * x + 2]);
            }
        }
        dlib::chip_details details;
        if (points) {
            // The detector's points: the similarity transform that puts them
            // nearest (least squares) to where they lie in dlib's own chip.
            std::vector<dlib::dpoint> inChip, inImage;
            for (int i = 0; i < 5; i++) {
                if (!std::isfinite(points[2 * i]) || !std::isfinite(points[2 * i + 1])) {
                    return report(CFaceDetect_BadArgument, message, "a landmark is not a number");
                }
                inChip.emplace_back(chipTemplate[2 * i], chipTemplate[2 * i + 1]);
                inImage.emplace_back(points[2 * i], points[2 * i + 1]);
            }
            details = dlib::chip_details(inChip, inImage, dlib::chip_dims(150, 150));
            if (!(details.rect.width() > 1) || !std::isfinite(details.angle)) {
                return report(CFaceDetect_BadArgument, message, "the landmarks make no chip (they coincide)");
            }
        } else {
            dlib::drectangle box(box_x, box_y, box_x + box_width - 1, box_y + box_height - 1);
            details = dlib::get_face_chip_details(landmarks->predictor(image, box), 150, 0.25);
        }
        dlib::matrix<dlib::rgb_pixel> chip;
        dlib::extract_image_chip(image, details, chip);
        return describe(embedder, chip, out, message);
    });
}

extern "C" void CFaceDetect_EmbedderClose(CFaceDetect_Embedder *embedder) { delete embedder; }
