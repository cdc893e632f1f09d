// dlib's face descriptor (see include/CFaceDetectIdentity.h). It lives in the shim
// because Swift cannot instantiate dlib's templates; the network is the
// ResNet dlib's face recognition model was trained as (29 convolutions,
// 150 x 150 RGB in, 128 numbers out), declared here layer by layer from its
// documented architecture so that the model file deserializes into it.
#include "CFaceDetect.h"
#include "landmarks5.hpp"
#include "status.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <string>
#include <vector>
#include <sys/stat.h>

#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_transforms.h>

namespace {

using cfacedetect::report;

template <typename Body> int guardedDlib(char **message, Body body) {
    return cfacedetect::guardedAs(CFaceDetect_OpenCVError, "dlib: ", message, body);
}

using namespace dlib;

// A 3x3 convolution pair with its batch-norm stand-ins (affine at inference).
template <int filters, template <typename> class norm, int stride, typename below>
using convs = norm<con<filters, 3, 3, 1, 1, relu<norm<con<filters, 3, 3, stride, stride, below>>>>>;

// Identity shortcut.
template <template <int, template <typename> class, int, typename> class body, int filters,
          template <typename> class norm, typename below>
using shortcut = add_prev1<body<filters, norm, 1, tag1<below>>>;

// Halving shortcut: the input average-pooled to the body's size.
template <template <int, template <typename> class, int, typename> class body, int filters,
          template <typename> class norm, typename below>
using shortcut_half = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<body<filters, norm, 2, tag1<below>>>>>>;

template <int filters, typename below> using unit = relu<shortcut<convs, filters, affine, below>>;
template <int filters, typename below> using unit_half = relu<shortcut_half<convs, filters, affine, below>>;

template <typename below> using stage256a = unit_half<256, below>;
template <typename below> using stage256 = unit<256, unit<256, unit_half<256, below>>>;
template <typename below> using stage128 = unit<128, unit<128, unit_half<128, below>>>;
template <typename below> using stage64 = unit<64, unit<64, unit<64, unit_half<64, below>>>>;
template <typename below> using stage32 = unit<32, unit<32, unit<32, below>>>;

using Network = loss_metric<fc_no_bias<
    128, avg_pool_everything<stage256a<stage256<stage128<stage64<stage32<
             max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>>>>>>>>>;

bool isFile(const char *path) {
    struct stat info;
    return path && stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

// OpenBLAS starts a thread per core for every matrix product; facecrop's
// workers already use the cores. Reference BLAS has no such call.
void singleThreadedBLAS() {
    using SetThreads = void (*)(int);
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
}

// Where the five points YuNet and CenterFace give (eye centres, nose tip,
// mouth corners, in FaceLandmarks' order: the eye nearer the image's left
// first) lie on average in dlib's own 150 px chip with padding 0.25, the chip
// get_face_chip_details makes from its 5-point predictor's parts: measured by
// scripts/chip-template on the people dev set's and Fixtures' faces (see
// docs/people.md, "Which landmarks make the chip").
const double chipTemplate[10] = {45.90, 47.45, 101.08, 46.95, 73.41, 79.19, 50.19, 105.20, 96.91, 104.59};

} // namespace

// The network alone: the 5-point predictor is the caller's (a
// CFaceDetect_Landmarker, shared), given to each CFaceDetect_Embed.
struct CFaceDetect_Embedder {
    Network network;
};

extern "C" int CFaceDetect_EmbedderNew(const char *recognition, CFaceDetect_Embedder **embedder, char **message) {
    return guardedDlib(message, [&]() -> int {
        if (!embedder) return report(CFaceDetect_BadArgument, message, "no handle");
        *embedder = nullptr;
        if (!isFile(recognition)) {
            return report(CFaceDetect_LoadFailed, message,
                          std::string("model file not found: ") + (recognition ? recognition : "(none)"));
        }
        singleThreadedBLAS();
        auto *made = new CFaceDetect_Embedder();
        try {
            dlib::deserialize(recognition) >> made->network;
        } catch (const std::exception &e) {
            delete made;
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not dlib's face recognition model: ") + recognition + " (" + e.what() + ")");
        }
        *embedder = made;
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
        dlib::matrix<float, 0, 1> descriptor = embedder->network(chip);
        if (descriptor.size() != CFaceDetect_EmbeddingSize) {
            return report(CFaceDetect_OpenCVError, message, "the network gave no 128-number descriptor");
        }
        for (long i = 0; i < descriptor.size(); i++) out[i] = descriptor(i);
        return CFaceDetect_OK;
    });
}

extern "C" void CFaceDetect_EmbedderClose(CFaceDetect_Embedder *embedder) { delete embedder; }
