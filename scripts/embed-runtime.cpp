// dlib's face descriptor outside facecrop. Built and run by
// scripts/yunet-runtime (embed, descriptor-xml, descriptor), which says what
// each command does.
//
//   embed-runtime time LIBRARY YUNET DESCRIPTOR PREDICTOR ROUNDS PHOTO...
//       YuNet (yunet.cpp, ONNX Runtime, one thread) finds the faces; the shim's
//       CFaceDetect_Embed (embed.cpp, the ONNX model DESCRIPTOR on ONNX Runtime,
//       one thread, as facecrop runs it) describes each from a 300 px region
//       around it, its chip made by dlib's 5-point predictor, as facecrop
//       does by default: ms a face.
//   embed-runtime compare LIBRARY ONNX THREADS YUNET RECOGNITION PREDICTOR ROUNDS PHOTO...
//       on each face's chip: dlib's network against the ONNX model through
//       the shim's session (onnx.cpp); descriptors compared, ms a pass.
#include "CFaceDetect.h"
#include "measure.hpp"
#include "landmarks5.hpp"

#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_transforms.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <ctime>
#include <time.h>
#include <string>
#include <vector>


#include "dlib_resnet.hpp"

const char *const measure::kTool = "embed-runtime";
using namespace measure;

namespace {

// The faces YuNet finds at 0.8 in `rgb`.
std::vector<CFaceDetect_YuNetFace> detect(CFaceDetect_YuNet *yunet, const cv::Mat &rgb, const char *photo) {
    CFaceDetect_YuNetFace *faces = nullptr;
    size_t count = 0;
    char *message = nullptr;
    if (CFaceDetect_YuNetDetect(yunet, rgb.data, rgb.cols, rgb.rows, rgb.step, 0.8f, 0.3f, &faces, &count,
                                &message) != CFaceDetect_OK)
        die(photo, message);
    std::vector<CFaceDetect_YuNetFace> found(faces, faces + count);
    CFaceDetect_Free(faces);
    return found;
}

// The 300 x 300 region facecrop gives the descriptor for `face`: the box's
// centre in the middle, its longer side half the region (Embedder.region).
cv::Mat region(const cv::Mat &rgb, const CFaceDetect_YuNetFace &face) {
    double k = 300.0 / (2 * std::max(face.width, face.height));
    double cx = face.x + face.width / 2, cy = face.y + face.height / 2;
    cv::Mat map = (cv::Mat_<double>(2, 3) << k, 0, 150 - k * cx, 0, k, 150 - k * cy), out;
    cv::warpAffine(rgb, out, map, cv::Size(300, 300), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    return out;
}

// The 150 x 150 chip CFaceDetect_Embed makes of the face filling half of
// the 300 px `region`: dlib's five points in the box, get_face_chip_details.
dlib::matrix<dlib::rgb_pixel> chipOf(const cv::Mat &region, const CFaceDetect_YuNetFace &face,
                                     const CFaceDetect_Landmarker &landmarker) {
    dlib::matrix<dlib::rgb_pixel> image(region.rows, region.cols), chip;
    for (int y = 0; y < region.rows; y++)
        for (int x = 0; x < region.cols; x++) {
            const auto &p = region.at<cv::Vec3b>(y, x);
            image(y, x) = dlib::rgb_pixel(p[0], p[1], p[2]);
        }
    double side = 150.0 * face.width / std::max(face.width, face.height);
    double tall = 150.0 * face.height / std::max(face.width, face.height);
    dlib::drectangle box((300 - side) / 2, (300 - tall) / 2, (300 + side) / 2 - 1, (300 + tall) / 2 - 1);
    dlib::extract_image_chip(image, dlib::get_face_chip_details(landmarker.predictor(image, box), 150, 0.25), chip);
    return chip;
}

// The photo at most 640 px long, RGB.
cv::Mat readPhoto(const char *photo) {
    cv::Mat bgr = cv::imread(photo, cv::IMREAD_COLOR), rgb;
    if (bgr.empty()) die(std::string("cannot read ") + photo);
    double scale = std::min(1.0, 640.0 / std::max(bgr.cols, bgr.rows));
    if (scale < 1) cv::resize(bgr, bgr, cv::Size(), scale, scale, cv::INTER_AREA);
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

} // namespace

int timeEmbed(int argc, char **argv) {
    if (argc < 7) die("usage: embed-runtime time LIBRARY YUNET DESCRIPTOR PREDICTOR ROUNDS PHOTO...");
    CFaceDetect_SetNumThreads(1);
    char *message = nullptr;
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    if (CFaceDetect_OnnxRuntimeOpen(argv[1], &runtime, &message) != CFaceDetect_OK) die(argv[1], message);
    argc--;
    argv++;
    const CFaceDetect_OnnxOptions one{1, 99, 0, 1};
    CFaceDetect_YuNet *yunet = nullptr;
    CFaceDetect_Embedder *embedder = nullptr;
    CFaceDetect_Landmarker *landmarker = nullptr;
    if (CFaceDetect_YuNetNew(runtime, argv[1], &one, &yunet, &message) != CFaceDetect_OK) die(argv[1], message);
    const CFaceDetect_OnnxOptions asFacecrop{1, 99, 0, 0};
    if (CFaceDetect_EmbedderNew(runtime, argv[2], &asFacecrop, &embedder, &message) != CFaceDetect_OK)
        die(argv[2], message);
    if (CFaceDetect_LandmarkerNew(argv[3], &landmarker, &message) != CFaceDetect_OK) die(argv[3], message);
    const int rounds = std::max(1, std::atoi(argv[4]));
    std::vector<double> all, allCpu;
    for (int p = 5; p < argc; p++) {
        cv::Mat rgb = readPhoto(argv[p]);
        std::vector<double> ms, cpu;
        for (const auto &face : detect(yunet, rgb, argv[p])) {
            cv::Mat r = region(rgb, face);
            double side = 150.0 * face.width / std::max(face.width, face.height);
            double tall = 150.0 * face.height / std::max(face.width, face.height);
            float out[CFaceDetect_EmbeddingSize];
            for (int i = 0; i < rounds; i++) {
                double start = nowMs(), startCpu = cpuMs();
                if (CFaceDetect_Embed(embedder, landmarker, r.data, 300, 300, r.step, (300 - side) / 2,
                                      (300 - tall) / 2, side, tall, nullptr, out, &message) != CFaceDetect_OK)
                    die(argv[p], message);
                ms.push_back(nowMs() - start);
                cpu.push_back(cpuMs() - startCpu);
            }
        }
        all.insert(all.end(), ms.begin(), ms.end());
        allCpu.insert(allCpu.end(), cpu.begin(), cpu.end());
        std::printf("%s: %zu faces, median %.1f ms wall, %.1f ms CPU a face (%d rounds each)\n", argv[p],
                    ms.size() / rounds, median(ms), median(cpu), rounds);
    }
    std::printf("all: %zu descriptors, median %.1f ms wall, %.1f ms CPU a face\n", all.size(), median(all),
                median(allCpu));
    CFaceDetect_LandmarkerClose(landmarker);
    CFaceDetect_EmbedderClose(embedder);
    CFaceDetect_YuNetClose(yunet);
    return 0;
}

// One descriptor through the ONNX session: the chip as RGB 0-255 floats.
std::vector<float> onnxDescriptor(CFaceDetect_OnnxSession *session, const dlib::matrix<dlib::rgb_pixel> &chip) {
    std::vector<float> input(3 * 150 * 150);
    for (long y = 0; y < 150; y++)
        for (long x = 0; x < 150; x++) {
            input[(0 * 150 + y) * 150 + x] = chip(y, x).red;
            input[(1 * 150 + y) * 150 + x] = chip(y, x).green;
            input[(2 * 150 + y) * 150 + x] = chip(y, x).blue;
        }
    const char *name = "descriptor";
    CFaceDetect_OnnxOutput out{};
    char *message = nullptr;
    if (CFaceDetect_OnnxSessionRun(session, input.data(), 3, 150, 150, &name, 1, &out, &message) != CFaceDetect_OK)
        die("run", message);
    std::vector<float> d(out.values, out.values + out.count);
    CFaceDetect_OnnxOutputsFree(&out, 1);
    return d;
}

// The Euclidean distance between two descriptors; `worst` raised to their
// largest difference in one number.
double distanceOf(const dlib::matrix<float, 0, 1> &a, const std::vector<float> &b, double &worst) {
    double distance = 0;
    for (long i = 0; i < a.size(); i++) {
        double d = a(i) - b.at(i);
        worst = std::max(worst, std::fabs(d));
        distance += d * d;
    }
    return std::sqrt(distance);
}

// OpenBLAS starts a thread per core for every matrix product of dlib's
// network; one thread, as dlib's descriptor ran in facecrop.
void singleThreadedBLAS() {
    using SetThreads = void (*)(int);
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
}

// compare LIBRARY ONNX THREADS YUNET RECOGNITION PREDICTOR ROUNDS PHOTO...
int compare(int argc, char **argv) {
    if (argc < 9) die("usage: embed-runtime compare LIBRARY ONNX THREADS YUNET RECOGNITION PREDICTOR ROUNDS PHOTO...");
    CFaceDetect_SetNumThreads(1);
    char *message = nullptr;
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    CFaceDetect_OnnxSession *session = nullptr;
    CFaceDetect_YuNet *yunet = nullptr;
    CFaceDetect_Landmarker *landmarker = nullptr;
    if (CFaceDetect_OnnxRuntimeOpen(argv[1], &runtime, &message) != CFaceDetect_OK) die(argv[1], message);
    CFaceDetect_OnnxOptions o{std::atoi(argv[3]), 99, 0, 1};
    if (CFaceDetect_OnnxSessionNew(runtime, argv[2], &o, &session, &message) != CFaceDetect_OK) die(argv[2], message);
    const CFaceDetect_OnnxOptions one{1, 99, 0, 1};
    if (CFaceDetect_YuNetNew(runtime, argv[4], &one, &yunet, &message) != CFaceDetect_OK) die(argv[4], message);
    if (CFaceDetect_LandmarkerNew(argv[6], &landmarker, &message) != CFaceDetect_OK) die(argv[6], message);
    singleThreadedBLAS();
    resnet::Network net;
    dlib::deserialize(argv[5]) >> net;
    const int rounds = std::max(1, std::atoi(argv[7]));
    std::vector<double> dlibMs, onnxMs, dlibCpu, onnxCpu;
    double worst = 0, worstDistance = 0;
    int faces = 0;
    for (int p = 8; p < argc; p++) {
        cv::Mat rgb = readPhoto(argv[p]);
        for (const auto &face : detect(yunet, rgb, argv[p])) {
            auto chip = chipOf(region(rgb, face), face, *landmarker);
            dlib::matrix<float, 0, 1> reference;
            std::vector<float> other;
            for (int i = 0; i < rounds; i++) {
                double start = nowMs(), startCpu = cpuMs();
                reference = net(chip);
                dlibMs.push_back(nowMs() - start);
                dlibCpu.push_back(cpuMs() - startCpu);
                start = nowMs(), startCpu = cpuMs();
                other = onnxDescriptor(session, chip);
                onnxMs.push_back(nowMs() - start);
                onnxCpu.push_back(cpuMs() - startCpu);
            }
            worstDistance = std::max(worstDistance, distanceOf(reference, other, worst));
            faces++;
        }
    }
    std::printf("%d faces, threads %s, median of %d alternating each: dlib %.1f ms wall %.1f ms CPU, ONNX Runtime "
                "%.1f ms wall %.1f ms CPU (this thread's) a descriptor; max |diff| %.3g, largest distance between the "
                "two descriptors of a face %.3g\n",
                faces, argv[3], rounds, median(dlibMs), median(dlibCpu), median(onnxMs), median(onnxCpu), worst,
                worstDistance);
    CFaceDetect_LandmarkerClose(landmarker);
    CFaceDetect_YuNetClose(yunet);
    CFaceDetect_OnnxSessionClose(session);
    CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

// rss dlib|onnx LIBRARY ONNX RECOGNITION THREADS: resident memory one
// descriptor network adds, loaded and after 3 passes on a grey chip (the
// runtime library, for onnx, loaded before).
int rss(int argc, char **argv) {
    if (argc != 6) die("usage: embed-runtime rss dlib|onnx LIBRARY ONNX RECOGNITION THREADS");
    const std::string kind = argv[1];
    char *message = nullptr;
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    if (kind == "onnx" && CFaceDetect_OnnxRuntimeOpen(argv[2], &runtime, &message) != CFaceDetect_OK)
        die(argv[2], message);
    dlib::matrix<dlib::rgb_pixel> chip(150, 150);
    chip = dlib::rgb_pixel(120, 110, 100);
    double before = rssMiB(), loaded = 0;
    if (kind == "dlib") {
        resnet::Network net;
        dlib::deserialize(argv[4]) >> net;
        loaded = rssMiB();
        for (int i = 0; i < 3; i++) net(chip);
        std::printf("dlib: RSS +%.1f MiB loaded, +%.1f MiB after 3 passes\n", loaded - before, rssMiB() - before);
        return 0;
    }
    CFaceDetect_OnnxOptions o{std::atoi(argv[5]), 99, 0, std::getenv("ARENA") ? std::atoi(std::getenv("ARENA")) : 1};
    CFaceDetect_OnnxSession *session = nullptr;
    if (CFaceDetect_OnnxSessionNew(runtime, argv[3], &o, &session, &message) != CFaceDetect_OK) die(argv[3], message);
    loaded = rssMiB();
    for (int i = 0; i < 3; i++) onnxDescriptor(session, chip);
    std::printf("onnx: RSS +%.1f MiB loaded, +%.1f MiB after 3 passes\n", loaded - before, rssMiB() - before);
    CFaceDetect_OnnxSessionClose(session);
    CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

int main(int argc, char **argv) {
    std::string command = argc > 1 ? argv[1] : "";
    if (command == "time") return timeEmbed(argc - 1, argv + 1);
    if (command == "compare") return compare(argc - 1, argv + 1);
    if (command == "rss") return rss(argc - 1, argv + 1);
    die("usage: see scripts/yunet-runtime");
}
