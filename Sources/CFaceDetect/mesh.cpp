// MediaPipe's Face Mesh landmark network and its iris network (see
// include/CFaceDetectMesh.h): models/face-mesh.onnx and
// models/face-mesh-iris.onnx, written from MediaPipe's .tflite files by
// scripts/face_mesh_model.py, on ONNX Runtime (onnx.cpp), one session each for
// every worker. The chips are cut here with OpenCV; what the points mean is
// the caller's (FaceMeshMeasures).
#include "internal.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

struct CFaceDetect_FaceMesh {
    CFaceDetect_OnnxSession *face = nullptr;
    CFaceDetect_OnnxSession *iris = nullptr;

    ~CFaceDetect_FaceMesh() {
        CFaceDetect_OnnxSessionClose(face);
        CFaceDetect_OnnxSessionClose(iris);
    }
};

namespace {

using cfacedetect::report;

constexpr int faceSide = CFaceDetect_FaceMeshSide;
constexpr int eyeSide = 64;
constexpr size_t faceValues = static_cast<size_t>(CFaceDetect_FaceMeshPoints) * 3;
constexpr size_t eyeValues = static_cast<size_t>(CFaceDetect_EyeContourPoints) * 3;
const char *const faceOutputs[2] = {"landmarks", "face_score"};
const char *const eyeOutputs[1] = {"eye_contour"};

// A 2 x 3 affine map as 6 numbers, a b c d e f: (x, y) -> (a x + b y + c, d x + e y + f).
using Affine = std::array<double, 6>;

Affine compose(const Affine &outer, const Affine &inner) {
    return {outer[0] * inner[0] + outer[1] * inner[3], outer[0] * inner[1] + outer[1] * inner[4],
            outer[0] * inner[2] + outer[1] * inner[5] + outer[2], outer[3] * inner[0] + outer[4] * inner[3],
            outer[3] * inner[1] + outer[4] * inner[4], outer[3] * inner[2] + outer[4] * inner[5] + outer[5]};
}

// The side x side square that `toImage` maps out of `image` (bilinear, edges repeated).
cv::Mat cut(const cv::Mat &image, const Affine &toImage, int side) {
    cv::Mat m = (cv::Mat_<double>(2, 3) << toImage[0], toImage[1], toImage[2], toImage[3], toImage[4], toImage[5]);
    cv::Mat chip;
    cv::warpAffine(image, chip, m, cv::Size(side, side), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
    return chip;
}

// `session` on a grey square chip: the three planes alike, 0-255 (the graphs
// scale them to 0-1 themselves). Checks each output's size.
int runChip(CFaceDetect_OnnxSession *session, const cv::Mat &chip, const char *const *names, size_t count,
            const size_t *sizes, CFaceDetect_OnnxOutput *outputs, char **message) {
    const int side = chip.rows;
    const size_t plane = static_cast<size_t>(side) * side;
    std::vector<float> planes(3 * plane);
    for (int y = 0; y < side; y++) {
        const uint8_t *row = chip.ptr<uint8_t>(y);
        for (int x = 0; x < side; x++) {
            size_t at = static_cast<size_t>(y) * side + x;
            planes[at] = planes[plane + at] = planes[2 * plane + at] = row[x];
        }
    }
    int status = CFaceDetect_OnnxSessionRun(session, planes.data(), 3, side, side, names, count, outputs, message);
    for (size_t i = 0; status == CFaceDetect_OK && i < count; i++) {
        if (outputs[i].count != sizes[i]) {
            status = report(CFaceDetect_RuntimeError, message, std::string("the network's output ") + names[i] +
                                                                   " has " + std::to_string(outputs[i].count) +
                                                                   " numbers, not " + std::to_string(sizes[i]));
        }
    }
    return status;
}

int runFace(CFaceDetect_FaceMesh *mesh, const cv::Mat &chip, float *points, float *presence, char **message) {
    CFaceDetect_OnnxOutput outputs[2] = {};
    const size_t sizes[2] = {faceValues, 1};
    int status = runChip(mesh->face, chip, faceOutputs, 2, sizes, outputs, message);
    if (status == CFaceDetect_OK) {
        std::copy(outputs[0].values, outputs[0].values + faceValues, points);
        *presence = static_cast<float>(1 / (1 + std::exp(-static_cast<double>(outputs[1].values[0]))));
    }
    CFaceDetect_OnnxOutputsFree(outputs, 2);
    return status;
}

// The iris network on the eye whose corners are mesh points `a` and `b`
// (chip pixels), cut from `image` through `chipToImage`; its 71 points, x y,
// in the chip's pixels to `out`.
int runEye(CFaceDetect_FaceMesh *mesh, const cv::Mat &image, const Affine &chipToImage, const float *points, int a,
           int b, bool mirrored, float *out, char **message) {
    double ax = points[3 * a], ay = points[3 * a + 1], bx = points[3 * b], by = points[3 * b + 1];
    double width = std::hypot(bx - ax, by - ay);
    double ux = width > 0 ? (bx - ax) / width : 1, uy = width > 0 ? (by - ay) / width : 0;
    double k = 2.3 * std::max(width, 1.0) / eyeSide, half = (eyeSide - 1) / 2.0;
    double sx = mirrored ? -1 : 1;
    double cx = (ax + bx) / 2, cy = (ay + by) / 2;
    // Eye cut -> chip: x along the corners' line (mirrored for the second eye), y across it.
    Affine eyeToChip = {k * sx * ux, -k * uy, cx - k * (sx * ux * half - uy * half),
                        k * sx * uy, k * ux,  cy - k * (sx * uy * half + ux * half)};
    cv::Mat eye = cut(image, compose(chipToImage, eyeToChip), eyeSide);
    CFaceDetect_OnnxOutput output{};
    int status = runChip(mesh->iris, eye, eyeOutputs, 1, &eyeValues, &output, message);
    if (status == CFaceDetect_OK) {
        for (int i = 0; i < CFaceDetect_EyeContourPoints; i++) {
            double x = output.values[3 * i], y = output.values[3 * i + 1];
            out[2 * i] = static_cast<float>(eyeToChip[0] * x + eyeToChip[1] * y + eyeToChip[2]);
            out[2 * i + 1] = static_cast<float>(eyeToChip[3] * x + eyeToChip[4] * y + eyeToChip[5]);
        }
    }
    CFaceDetect_OnnxOutputsFree(&output, 1);
    return status;
}

// Loads `model` into `*session` and checks it with a pass on a grey chip.
int load(CFaceDetect_OnnxRuntime *runtime, const char *model, const CFaceDetect_OnnxOptions *options, int side,
         const char *const *names, size_t count, const size_t *sizes, const char *what,
         CFaceDetect_OnnxSession **session, char **message) {
    int status = CFaceDetect_OnnxSessionNew(runtime, model, options, session, message);
    if (status != CFaceDetect_OK) return status;
    int64_t shape[8] = {};
    CFaceDetect_OnnxOutput outputs[2] = {};
    char *why = nullptr;
    bool fits = CFaceDetect_OnnxSessionInputShape(*session, shape, 8) == 4 && shape[1] == 3 && shape[2] == side &&
                shape[3] == side &&
                runChip(*session, cv::Mat(side, side, CV_8UC1, cv::Scalar(128)), names, count, sizes, outputs, &why) ==
                    CFaceDetect_OK;
    CFaceDetect_OnnxOutputsFree(outputs, count);
    if (fits) return CFaceDetect_OK;
    std::string reason = why ? std::string(" (") + why + ")" : std::string();
    CFaceDetect_Free(why);
    return report(CFaceDetect_LoadFailed, message, std::string("not ") + what + reason + ": " + model);
}

} // namespace

extern "C" int CFaceDetect_FaceMeshNew(CFaceDetect_OnnxRuntime *runtime, const char *model, const char *iris_model,
                                       const CFaceDetect_OnnxOptions *options, CFaceDetect_FaceMesh **mesh,
                                       char **message) {
    return cfacedetect::guarded(message, [&]() -> int {
        if (!runtime || !model || !iris_model || !options || !mesh) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the face mesh");
        }
        *mesh = nullptr;
        auto made = std::make_unique<CFaceDetect_FaceMesh>();
        const size_t faceSizes[2] = {faceValues, 1};
        int status = load(runtime, model, options, faceSide, faceOutputs, 2, faceSizes,
                          "MediaPipe's face mesh as ONNX (1 x 3 x 192 x 192 in, 468 points and a face score out)",
                          &made->face, message);
        if (status != CFaceDetect_OK) return status;
        status = load(runtime, iris_model, options, eyeSide, eyeOutputs, 1, &eyeValues,
                      "MediaPipe's iris network as ONNX (1 x 3 x 64 x 64 in, 71 eye contour points out)", &made->iris,
                      message);
        if (status != CFaceDetect_OK) return status;
        *mesh = made.release();
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_FaceMeshRun(CFaceDetect_FaceMesh *mesh, const uint8_t *gray, int width, int height,
                                       size_t stride, const double *chip_to_image, float *points, float *presence,
                                       float *eyes, char **message) {
    return cfacedetect::guarded(message, [&]() -> int {
        if (!mesh || !gray || !chip_to_image || !points || !presence || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the face mesh");
        }
        Affine toImage{};
        for (int i = 0; i < 6; i++) {
            if (!std::isfinite(chip_to_image[i])) {
                return report(CFaceDetect_BadArgument, message, "the face mesh's chip is not a number");
            }
            toImage[i] = chip_to_image[i];
        }
        const cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        int status = runFace(mesh, cut(image, toImage, faceSide), points, presence, message);
        if (status != CFaceDetect_OK || !eyes) return status;
        status = runEye(mesh, image, toImage, points, 33, 133, false, eyes, message);
        if (status != CFaceDetect_OK) return status;
        return runEye(mesh, image, toImage, points, 362, 263, true, eyes + 2 * CFaceDetect_EyeContourPoints, message);
    });
}

extern "C" void CFaceDetect_FaceMeshClose(CFaceDetect_FaceMesh *mesh) { delete mesh; }
