// YuNet on its two runtimes, outside facecrop: one forward pass of the
// shipped model through cv::dnn (as yunet.cpp runs it) against the same
// network through the shim's ONNX Runtime session (onnx.cpp), on a photo
// padded to multiples of 32 as yunet.cpp pads it. Also times any one-input
// ONNX model through the session (`model`). Built and run by
// scripts/yunet-runtime, which says what each command does.
#include "CFaceDetect.h"
#include "measure.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

const char *const measure::kTool = "yunet-runtime";
using namespace measure;

namespace {

const std::vector<std::string> kOutputs = {"cls_8",  "cls_16",  "cls_32",  "obj_8", "obj_16", "obj_32",
                                           "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};

using Maps = std::vector<std::vector<float>>;

void parseSize(const char *text, int &width, int &height) {
    if (std::sscanf(text, "%dx%d", &width, &height) != 2 || width < 1 || height < 1)
        die(std::string("not a size: ") + text);
}

// A photo as YuNet's input on a `width` x `height` canvas: resized to fit
// (INTER_AREA), padded right and bottom with black, BGR 0-255 floats, NCHW.
cv::Mat photoBlob(const cv::Mat &bgr, int width, int height) {
    double scale = std::min(static_cast<double>(width) / bgr.cols, static_cast<double>(height) / bgr.rows);
    cv::Mat sized, padded;
    cv::resize(bgr, sized,
               cv::Size(std::max(1, static_cast<int>(bgr.cols * scale)), std::max(1, static_cast<int>(bgr.rows * scale))),
               0, 0, cv::INTER_AREA);
    cv::copyMakeBorder(sized, padded, 0, height - sized.rows, 0, width - sized.cols, cv::BORDER_CONSTANT,
                       cv::Scalar(0, 0, 0));
    return cv::dnn::blobFromImage(padded, 1.0, cv::Size(), cv::Scalar(), false, false);
}

// One runtime's YuNet: a forward pass on a blob, its 12 outputs as floats.
struct Network {
    std::string name;
    cv::dnn::Net net;                           // cv::dnn
    CFaceDetect_OnnxSession *session = nullptr; // ONNX Runtime
    Maps pass(const cv::Mat &blob) {
        Maps maps;
        if (session) {
            std::vector<const char *> names;
            for (const auto &n : kOutputs) names.push_back(n.c_str());
            std::vector<CFaceDetect_OnnxOutput> out(names.size());
            char *message = nullptr;
            if (CFaceDetect_OnnxSessionRun(session, blob.ptr<float>(), blob.size[1], blob.size[2], blob.size[3],
                                           names.data(), names.size(), out.data(), &message) != CFaceDetect_OK)
                die("run", message);
            for (auto &o : out) maps.emplace_back(o.values, o.values + o.count);
            CFaceDetect_OnnxOutputsFree(out.data(), out.size());
            return maps;
        }
        net.setInput(blob);
        std::vector<cv::Mat> out;
        net.forward(out, std::vector<cv::String>(kOutputs.begin(), kOutputs.end()));
        for (auto &m : out) maps.emplace_back(m.ptr<float>(), m.ptr<float>() + m.total());
        return maps;
    }
};

Network makeNetwork(const std::string &kind, CFaceDetect_OnnxRuntime *runtime, const char *shipped,
                    const char *symbolic, int threads) {
    Network n;
    n.name = kind;
    if (kind == "opencv") {
        n.net = cv::dnn::readNetFromONNX(shipped);
        n.net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        n.net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    } else if (kind == "ort") {
        n.session = openSession(runtime, symbolic, threads);
    } else {
        die("no runtime '" + kind + "' (opencv or ort)");
    }
    return n;
}

// A face score sqrt(cls * obj) (what yunet.cpp thresholds) of cell `j`
// at `level`.
float score(const Maps &m, int level, size_t j) {
    return std::sqrt(std::clamp(m[level][j], 0.f, 1.f) * std::clamp(m[level + 3][j], 0.f, 1.f));
}

int cellsAbove(const Maps &m, float threshold) {
    int n = 0;
    for (int level = 0; level < 3; level++)
        for (size_t j = 0; j < m[level].size(); j++) n += score(m, level, j) >= threshold;
    return n;
}

// The largest |a - b| over all outputs, and over the scores of the cells
// either runtime scores at least 0.3 (near 0 the square root magnifies
// differences no threshold sees); -1 when the shapes differ.
void compare(const Maps &a, const Maps &b, double &outputs, double &scores) {
    outputs = scores = 0;
    for (size_t i = 0; i < a.size(); i++) {
        if (a[i].size() != b[i].size()) {
            outputs = scores = -1;
            return;
        }
        for (size_t j = 0; j < a[i].size(); j++) outputs = std::max(outputs, std::fabs(double(a[i][j]) - b[i][j]));
    }
    for (int level = 0; level < 3; level++)
        for (size_t j = 0; j < a[level].size(); j++) {
            float sa = score(a, level, j), sb = score(b, level, j);
            if (sa >= 0.3f || sb >= 0.3f) scores = std::max(scores, std::fabs(double(sa) - sb));
        }
}

// time LIBRARY SHIPPED SYMBOLIC PHOTO THREADS ROUNDS WxH...: per size, the
// two runtimes' outputs compared, then one warm pass each and ROUNDS
// rounds with the two alternating; median ms a pass.
int timePasses(const char *library, const char *shipped, const char *symbolic, const char *photo, int threads,
               int rounds, int count, char **sizes) {
    cv::setNumThreads(threads);
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    char *message = nullptr;
    if (CFaceDetect_OnnxRuntimeOpen(library, &runtime, &message) != CFaceDetect_OK) die("runtime", message);
    cv::Mat bgr = cv::imread(photo, cv::IMREAD_COLOR);
    if (bgr.empty()) die(std::string("cannot read ") + photo);
    for (int s = 0; s < count; s++) {
        int width = 0, height = 0;
        parseSize(sizes[s], width, height);
        cv::Mat blob = photoBlob(bgr, width, height);
        std::vector<Network> nets;
        for (const char *kind : {"opencv", "ort"}) nets.push_back(makeNetwork(kind, runtime, shipped, symbolic, threads));
        double outputs = 0, scores = 0;
        Maps dnnMaps = nets[0].pass(blob), ortMaps = nets[1].pass(blob);
        compare(dnnMaps, ortMaps, outputs, scores);
        std::vector<double> ms[2];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 2; k++) {
                double start = nowMs();
                nets[k].pass(blob);
                ms[k].push_back(nowMs() - start);
            }
        }
        double dnn = median(ms[0]), ort = median(ms[1]);
        std::printf("%4dx%-4d threads %d: cv::dnn %.1f ms  ORT %.1f ms  (%.2fx faster; median of %d alternating)"
                    "  max |diff| outputs %.2g, scores %.2g; cells >= 0.8: %d and %d\n",
                    width, height, threads, dnn, ort, dnn / ort, rounds, outputs, scores, cellsAbove(dnnMaps, 0.8f),
                    cellsAbove(ortMaps, 0.8f));
        for (auto &n : nets)
            if (n.session) CFaceDetect_OnnxSessionClose(n.session);
    }
    CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

// mixed LIBRARY SHIPPED SYMBOLIC PHOTO THREADS ROUNDS WxH...: one network
// of each runtime through the sizes in turn, ROUNDS times (as one detector
// meets photos of several canvases); median ms a pass of each at each
// size, after one warm round.
int mixedSizes(const char *library, const char *shipped, const char *symbolic, const char *photo, int threads,
               int rounds, int count, char **sizes) {
    cv::setNumThreads(threads);
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    char *message = nullptr;
    if (CFaceDetect_OnnxRuntimeOpen(library, &runtime, &message) != CFaceDetect_OK) die("runtime", message);
    cv::Mat bgr = cv::imread(photo, cv::IMREAD_COLOR);
    if (bgr.empty()) die(std::string("cannot read ") + photo);
    std::vector<cv::Mat> blobs;
    for (int s = 0; s < count; s++) {
        int width = 0, height = 0;
        parseSize(sizes[s], width, height);
        blobs.push_back(photoBlob(bgr, width, height));
    }
    std::vector<Network> nets;
    for (const char *kind : {"opencv", "ort"}) nets.push_back(makeNetwork(kind, runtime, shipped, symbolic, threads));
    std::vector<std::vector<double>> ms(2 * blobs.size());
    for (int r = 0; r <= rounds; r++) {
        for (size_t b = 0; b < blobs.size(); b++) {
            for (int k = 0; k < 2; k++) {
                double start = nowMs();
                nets[k].pass(blobs[b]);
                if (r > 0) ms[2 * b + k].push_back(nowMs() - start);
            }
        }
    }
    std::printf("sizes in turn, threads %d, median of %d:", threads, rounds);
    for (size_t b = 0; b < blobs.size(); b++)
        std::printf("  %s cv::dnn %.1f ms ORT %.1f ms;", sizes[b], median(ms[2 * b]), median(ms[2 * b + 1]));
    std::printf("\n");
    CFaceDetect_OnnxSessionClose(nets[1].session);
    CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

// check LIBRARY SYMBOLIC PHOTO WxH...: ORT's outputs at each size from
// one session running the sizes in turn, twice, at 1, 2 and 4 intra-op
// threads, against a fresh one-thread session at that size, byte for byte.
int check(const char *library, const char *symbolic, const char *photo, int count, char **sizes) {
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    char *message = nullptr;
    if (CFaceDetect_OnnxRuntimeOpen(library, &runtime, &message) != CFaceDetect_OK) die("runtime", message);
    cv::Mat bgr = cv::imread(photo, cv::IMREAD_COLOR);
    if (bgr.empty()) die(std::string("cannot read ") + photo);
    std::vector<cv::Mat> blobs;
    std::vector<Maps> fresh;
    for (int s = 0; s < count; s++) {
        int width = 0, height = 0;
        parseSize(sizes[s], width, height);
        blobs.push_back(photoBlob(bgr, width, height));
        Network n = makeNetwork("ort", runtime, nullptr, symbolic, 1);
        fresh.push_back(n.pass(blobs.back()));
        CFaceDetect_OnnxSessionClose(n.session);
    }
    int differ = 0, runs = 0;
    for (int threads : {1, 2, 4}) {
        Network n = makeNetwork("ort", runtime, nullptr, symbolic, threads);
        for (int round = 0; round < 2; round++)
            for (size_t b = 0; b < blobs.size(); b++, runs++) differ += n.pass(blobs[b]) != fresh[b];
        CFaceDetect_OnnxSessionClose(n.session);
    }
    std::printf("%s: %d of %d passes differ from a fresh session's (1, 2, 4 threads, sizes in turn, twice)\n", photo,
                differ, runs);
    CFaceDetect_OnnxRuntimeClose(runtime);
    return differ ? 2 : 0;
}

// rss LIBRARY SHIPPED SYMBOLIC opencv|ort WxH THREADS [PASSES]: resident
// memory added by one network and 3 passes (after the runtime is loaded);
// then PASSES more passes, their median wall ms and CPU ms a pass.
int rss(const char *library, const char *shipped, const char *symbolic, const std::string &kind, const char *size,
        int threads, int passes) {
    int width = 0, height = 0;
    parseSize(size, width, height);
    cv::setNumThreads(threads);
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    char *message = nullptr;
    double bare = rssMiB();
    if (CFaceDetect_OnnxRuntimeOpen(library, &runtime, &message) != CFaceDetect_OK) die("runtime", message);
    std::printf("(the runtime loaded: RSS +%.1f MiB) ", rssMiB() - bare);
    // OpenCV's own first allocations and the blob, outside what is measured.
    cv::Mat blob = photoBlob(cv::Mat(height, width, CV_8UC3, cv::Scalar(128, 128, 128)), width, height);
    double before = rssMiB();
    Network n = makeNetwork(kind, runtime, shipped, symbolic, threads);
    double loaded = rssMiB();
    for (int i = 0; i < 3; i++) n.pass(blob);
    double after = rssMiB();
    std::printf("%s %dx%d threads %d: RSS +%.1f MiB after loading, +%.1f MiB after 3 passes", kind.c_str(), width,
                height, threads, loaded - before, after - before);
    if (passes > 0) {
        std::vector<double> ms;
        std::clock_t cpu = std::clock();
        for (int i = 0; i < passes; i++) {
            double start = nowMs();
            n.pass(blob);
            ms.push_back(nowMs() - start);
        }
        double cpuMs = 1000.0 * static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
        std::printf("; %d passes: median %.1f ms wall, %.1f ms CPU a pass, RSS +%.1f MiB", passes, median(ms),
                    cpuMs / passes, rssMiB() - before);
    }
    std::printf("\n");
    return 0;
}

// model LIBRARY MODEL CxHxW THREADS ROUNDS: a one-input model through the
// shim's session on a constant input, its first output; median ms a pass
// after one warm pass.
int timeModel(const char *library, const char *model, const char *shape, int threads, int rounds) {
    int c = 0, h = 0, w = 0;
    if (std::sscanf(shape, "%dx%dx%d", &c, &h, &w) != 3) die(std::string("not CxHxW: ") + shape);
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    char *message = nullptr;
    if (CFaceDetect_OnnxRuntimeOpen(library, &runtime, &message) != CFaceDetect_OK) die("runtime", message);
    CFaceDetect_OnnxSession *session = openSession(runtime, model, threads);
    const char *name = std::getenv("OUTPUT") ? std::getenv("OUTPUT") : "output";
    std::vector<float> input(static_cast<size_t>(c) * h * w, 0.5f);
    std::vector<double> ms;
    for (int r = 0; r <= rounds; r++) {
        CFaceDetect_OnnxOutput out{};
        double start = nowMs();
        if (CFaceDetect_OnnxSessionRun(session, input.data(), c, h, w, &name, 1, &out, &message) != CFaceDetect_OK)
            die("run", message);
        if (r > 0) ms.push_back(nowMs() - start);
        CFaceDetect_OnnxOutputsFree(&out, 1);
    }
    std::printf("%s %s threads %d: median %.1f ms a pass of %d\n", model, shape, threads, median(ms), rounds);
    CFaceDetect_OnnxSessionClose(session);
    CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    std::string command = argc > 1 ? argv[1] : "";
    if (command == "time" && argc >= 9)
        return timePasses(argv[2], argv[3], argv[4], argv[5], std::atoi(argv[6]), std::atoi(argv[7]), argc - 8,
                          argv + 8);
    if (command == "mixed" && argc >= 9)
        return mixedSizes(argv[2], argv[3], argv[4], argv[5], std::atoi(argv[6]), std::atoi(argv[7]), argc - 8,
                          argv + 8);
    if (command == "rss" && (argc == 8 || argc == 9))
        return rss(argv[2], argv[3], argv[4], argv[5], argv[6], std::atoi(argv[7]), argc == 9 ? std::atoi(argv[8]) : 0);
    if (command == "check" && argc >= 6) return check(argv[2], argv[4], argv[5], argc - 6, argv + 6);
    if (command == "model" && argc == 7)
        return timeModel(argv[2], argv[3], argv[4], std::atoi(argv[5]), std::atoi(argv[6]));
    std::fprintf(stderr, "usage: see scripts/yunet-runtime\n");
    return 64;
}
