// MediaPipe's Face Mesh landmark network (see include/CFaceDetectMesh.h):
// models/face-mesh.onnx, written from MediaPipe's face_landmark.tflite by
// scripts/face_mesh_model.py, on ONNX Runtime (onnx.cpp), one session for
// every worker. The chip is cut here with OpenCV from the transform the
// caller gives; what the points mean is the caller's (FaceMeshMeasures).
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

struct CFaceDetect_FaceMesh {
    CFaceDetect_OnnxSession *session = nullptr;

    ~CFaceDetect_FaceMesh() { CFaceDetect_OnnxSessionClose(session); }
};

namespace {

using cfacedetect::report;

constexpr int side = CFaceDetect_FaceMeshSide;
constexpr size_t values = static_cast<size_t>(CFaceDetect_FaceMeshPoints) * 3;
const char *const outputNames[2] = {"landmarks", "face_score"};

// The network on a grey chip (side x side, 8-bit): the three planes alike,
// 0-255 (the graph scales them to 0-1 itself).
int runChip(CFaceDetect_FaceMesh *mesh, const cv::Mat &chip, float *points, float *presence, char **message) {
    const size_t plane = static_cast<size_t>(side) * side;
    std::vector<float> planes(3 * plane);
    for (int y = 0; y < side; y++) {
        const uint8_t *row = chip.ptr<uint8_t>(y);
        for (int x = 0; x < side; x++) {
            float v = row[x];
            size_t at = static_cast<size_t>(y) * side + x;
            planes[at] = v;
            planes[plane + at] = v;
            planes[2 * plane + at] = v;
        }
    }
    CFaceDetect_OnnxOutput outputs[2] = {};
    int status = CFaceDetect_OnnxSessionRun(mesh->session, planes.data(), 3, side, side, outputNames, 2, outputs, message);
    if (status == CFaceDetect_OK && (outputs[0].count != values || outputs[1].count != 1)) {
        status = report(CFaceDetect_RuntimeError, message, "the face mesh network gave no 468 points and score");
    }
    if (status == CFaceDetect_OK) {
        std::copy(outputs[0].values, outputs[0].values + values, points);
        *presence = static_cast<float>(1 / (1 + std::exp(-static_cast<double>(outputs[1].values[0]))));
    }
    CFaceDetect_OnnxOutputsFree(outputs, 2);
    return status;
}

} // namespace

extern "C" int CFaceDetect_FaceMeshNew(CFaceDetect_OnnxRuntime *runtime, const char *model,
                                       const CFaceDetect_OnnxOptions *options, CFaceDetect_FaceMesh **mesh,
                                       char **message) {
    return cfacedetect::guarded(message, [&]() -> int {
        if (!runtime || !model || !options || !mesh) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the face mesh");
        }
        *mesh = nullptr;
        auto made = std::make_unique<CFaceDetect_FaceMesh>();
        int status = CFaceDetect_OnnxSessionNew(runtime, model, options, &made->session, message);
        if (status != CFaceDetect_OK) return status;
        // A trial pass on a grey chip: another network is refused now.
        int64_t shape[8] = {};
        cv::Mat grey(side, side, CV_8UC1, cv::Scalar(128));
        std::vector<float> points(values);
        float presence = 0;
        char *why = nullptr;
        if (CFaceDetect_OnnxSessionInputShape(made->session, shape, 8) != 4 || shape[1] != 3 || shape[2] != side ||
            shape[3] != side || runChip(made.get(), grey, points.data(), &presence, &why) != CFaceDetect_OK) {
            std::string reason = why ? std::string(" (") + why + ")" : std::string();
            CFaceDetect_Free(why);
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not MediaPipe's face mesh as ONNX (1 x 3 x 192 x 192 in, 468 points and a "
                                      "face score out)") +
                              reason + ": " + model);
        }
        *mesh = made.release();
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_FaceMeshRun(CFaceDetect_FaceMesh *mesh, const uint8_t *gray, int width, int height,
                                       size_t stride, const double *chip_to_image, float *points, float *presence,
                                       char **message) {
    return cfacedetect::guarded(message, [&]() -> int {
        if (!mesh || !gray || !chip_to_image || !points || !presence || width < 1 || height < 1 ||
            stride < static_cast<size_t>(width)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the face mesh");
        }
        for (int i = 0; i < 6; i++) {
            if (!std::isfinite(chip_to_image[i])) {
                return report(CFaceDetect_BadArgument, message, "the face mesh's chip is not a number");
            }
        }
        const cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        cv::Mat toImage = (cv::Mat_<double>(2, 3) << chip_to_image[0], chip_to_image[1], chip_to_image[2],
                           chip_to_image[3], chip_to_image[4], chip_to_image[5]);
        cv::Mat chip;
        cv::warpAffine(image, chip, toImage, cv::Size(side, side), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                       cv::BORDER_REPLICATE);
        return runChip(mesh, chip, points, presence, message);
    });
}

extern "C" void CFaceDetect_FaceMeshClose(CFaceDetect_FaceMesh *mesh) { delete mesh; }
