// CenterFace on its two runtimes, outside facecrop: checks and measures the
// shim's ONNX Runtime path (onnx.cpp, centerface.cpp) against cv::dnn.
// Built and run by scripts/centerface-runtime, which says what each command
// does. OpenCV here only reads the photos and runs cv::dnn for the
// comparison; the ONNX Runtime path is the shim's.
#include "CFaceDetect.h"
#include "measure.hpp"

#include <opencv2/dnn.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

const char *const measure::kTool = "centerface-runtime";
using namespace measure;

namespace {

const char *const kOutputs[4] = {"537", "538", "539", "540"};

// A photo as RGB 0-255 floats NCHW on a canvas of `width` x `height`:
// resized to fit, padded right and bottom with black, as the shim does.
std::vector<float> photoBlob(const cv::Mat &bgr, int width, int height) {
    double scale = std::min(static_cast<double>(width) / bgr.cols, static_cast<double>(height) / bgr.rows);
    cv::Mat rgb, sized;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    cv::resize(rgb, sized,
               cv::Size(std::max(1, static_cast<int>(bgr.cols * scale)), std::max(1, static_cast<int>(bgr.rows * scale))),
               0, 0, cv::INTER_AREA);
    std::vector<float> blob(static_cast<size_t>(3) * width * height, 0.f);
    for (int y = 0; y < sized.rows; y++)
        for (int x = 0; x < sized.cols; x++)
            for (int c = 0; c < 3; c++)
                blob[(static_cast<size_t>(c) * height + y) * width + x] = sized.at<cv::Vec3b>(y, x)[c];
    return blob;
}

std::vector<std::vector<float>> runOnce(CFaceDetect_OnnxSession *session, const std::vector<float> &blob, int width,
                                        int height) {
    CFaceDetect_OnnxOutput out[4];
    char *message = nullptr;
    if (CFaceDetect_OnnxSessionRun(session, blob.data(), 3, height, width, kOutputs, 4, out, &message) !=
        CFaceDetect_OK) {
        CFaceDetect_OnnxOutputsFree(out, 4);
        die("run", message);
    }
    std::vector<std::vector<float>> maps;
    for (auto &o : out) maps.emplace_back(o.values, o.values + o.count);
    CFaceDetect_OnnxOutputsFree(out, 4);
    return maps;
}

bool sameBytes(const std::vector<std::vector<float>> &a, const std::vector<std::vector<float>> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++) {
        if (a[i].size() != b[i].size() || std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float)) != 0) {
            return false;
        }
    }
    return true;
}

float maxDifference(const std::vector<std::vector<float>> &a, const std::vector<std::vector<float>> &b) {
    float worst = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); i++)
        for (size_t j = 0; j < a[i].size() && j < b[i].size(); j++) worst = std::max(worst, std::fabs(a[i][j] - b[i][j]));
    return worst;
}

int countAbove(const std::vector<float> &heat, float threshold) {
    return static_cast<int>(std::count_if(heat.begin(), heat.end(), [&](float v) { return v >= threshold; }));
}

// check LIBRARY MODEL PHOTO: (a) each size in one session, sizes
// alternating, equals a fresh session at that size; (b) the same bytes at
// 1, 2 and 4 intra-op threads and on a second run.
int check(const char *library, const char *model, const char *photo) {
    CFaceDetect_OnnxRuntime *runtime = openRuntime(library);
    cv::Mat bgr = cv::imread(photo, cv::IMREAD_COLOR);
    if (bgr.empty()) die(std::string("cannot read ") + photo);
    const std::vector<std::pair<int, int>> sizes = {{320, 256}, {1024, 768}, {768, 1024}, {1024, 576},
                                                    {416, 416}, {320, 192},  {1024, 768}, {1280, 960},
                                                    {768, 1024}, {320, 256}};
    std::map<std::pair<int, int>, std::vector<std::vector<float>>> fresh;
    for (auto size : sizes) {
        if (fresh.count(size)) continue;
        CFaceDetect_OnnxSession *session = openSession(runtime, model, 1);
        fresh[size] = runOnce(session, photoBlob(bgr, size.first, size.second), size.first, size.second);
        CFaceDetect_OnnxSessionClose(session);
    }
    int failures = 0;
    for (int threads : {1, 2, 4}) {
        CFaceDetect_OnnxSession *shared = openSession(runtime, model, threads);
        for (int round = 0; round < 2; round++) {
            for (auto size : sizes) {
                auto maps = runOnce(shared, photoBlob(bgr, size.first, size.second), size.first, size.second);
                bool same = sameBytes(maps, fresh.at(size));
                failures += !same;
                std::printf("%s threads %d round %d %4dx%-4d: %s (heatmap >= 0.5: %d, fresh %d; max |diff| %g)\n",
                            model, threads, round + 1, size.first, size.second, same ? "same bytes as fresh" : "DIFFERS",
                            countAbove(maps[0], 0.5f), countAbove(fresh.at(size)[0], 0.5f),
                            static_cast<double>(maxDifference(maps, fresh.at(size))));
            }
        }
        CFaceDetect_OnnxSessionClose(shared);
    }
    CFaceDetect_OnnxRuntimeClose(runtime);
    std::printf("%s: %d of %zu differ\n", model, failures, sizes.size() * 6);
    return failures ? 2 : 0;
}

// detect LIBRARY|opencv MODEL THRESHOLD THREADS PHOTO...: the shim's faces
// as manifest lines ({"source", "bbox", "score", "landmarks"}), source
// relative to the photo's folder.
int detect(const char *library, const char *model, float threshold, int threads, int count, char **photos) {
    CFaceDetect_CenterFace *cf = nullptr;
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    char *message = nullptr;
    if (std::strcmp(library, "opencv") == 0) {
        CFaceDetect_SetNumThreads(threads);
        if (CFaceDetect_CenterFaceNew(model, 1280L * 960 + 3L * 320 * 256, &cf, &message) != CFaceDetect_OK)
            die(model, message);
    } else {
        CFaceDetect_SetNumThreads(1);
        runtime = openRuntime(library);
        CFaceDetect_OnnxOptions o = options(threads);
        // CANVAS=tight: multiples of 32; else the ladder.
        const char *canvas = std::getenv("CANVAS");
        auto kind = canvas && std::strcmp(canvas, "tight") == 0 ? CFaceDetect_CanvasTight : CFaceDetect_CanvasLadder;
        if (CFaceDetect_CenterFaceNewOnnx(runtime, model, &o, kind, &cf, &message) != CFaceDetect_OK)
            die(model, message);
    }
    for (int i = 0; i < count; i++) {
        cv::Mat bgr = cv::imread(photos[i], cv::IMREAD_COLOR), rgb;
        if (bgr.empty()) die(std::string("cannot read ") + photos[i]);
        // At most 1024 px long, as facecrop's default detection size.
        double scale = std::min(1.0, 1024.0 / std::max(bgr.cols, bgr.rows));
        if (scale < 1) cv::resize(bgr, bgr, cv::Size(), scale, scale, cv::INTER_AREA);
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        CFaceDetect_YuNetFace *faces = nullptr;
        size_t found = 0;
        if (CFaceDetect_CenterFaceDetect(cf, rgb.data, rgb.cols, rgb.rows, rgb.step, threshold, 0.3f, &faces, &found,
                                         &message) != CFaceDetect_OK)
            die(photos[i], message);
        const char *name = std::strrchr(photos[i], '/');
        name = name ? name + 1 : photos[i];
        std::printf("{\"source\": \"%s\"}\n", name);
        for (size_t f = 0; f < found; f++) {
            const auto &face = faces[f];
            std::printf("{\"source\": \"%s\", \"bbox\": [%.9g, %.9g, %.9g, %.9g], \"score\": %.9g, \"landmarks\": [", name,
                        face.x / scale, face.y / scale, face.width / scale, face.height / scale, face.score);
            for (int k = 0; k < 10; k++) std::printf("%s%.9g", k ? ", " : "", face.landmarks[k] / scale);
            std::printf("]}\n");
        }
        CFaceDetect_Free(faces);
    }
    CFaceDetect_CenterFaceClose(cf);
    if (runtime) CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

// One runtime's network at one size: a forward pass on `blob`.
struct Network {
    std::string name;
    cv::dnn::Net net;                           // opencv
    CFaceDetect_OnnxSession *session = nullptr; // onnx
    void pass(const std::vector<float> &blob, int width, int height) {
        if (session) {
            runOnce(session, blob, width, height);
            return;
        }
        int dims[4] = {1, 3, height, width};
        cv::Mat input(4, dims, CV_32F, const_cast<float *>(blob.data()));
        net.setInput(input);
        std::vector<cv::Mat> out;
        net.forward(out, std::vector<cv::String>(std::begin(kOutputs), std::end(kOutputs)));
    }
};

Network makeNetwork(const std::string &kind, CFaceDetect_OnnxRuntime *runtime, const std::string &models,
                    int threads) {
    Network n;
    n.name = kind;
    if (kind == "opencv") {
        n.net = cv::dnn::readNetFromONNX(models + "/centerface.onnx");
        n.net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        n.net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    } else {
        n.session = openSession(runtime, (models + "/centerface-" + kind + ".onnx").c_str(), threads);
    }
    return n;
}

// time LIBRARY MODELS PHOTO THREADS ROUNDS WxH...: one pass of each runtime
// (opencv, fp32, int8) at each size, the runtimes alternating within each
// round, after one warm-up pass each; prints the median ms per pass.
int timePasses(const char *library, const std::string &models, const char *photo, int threads, int rounds, int count,
               char **sizes) {
    CFaceDetect_SetNumThreads(threads);
    CFaceDetect_OnnxRuntime *runtime = openRuntime(library);
    cv::Mat bgr = cv::imread(photo, cv::IMREAD_COLOR);
    for (int s = 0; s < count; s++) {
        int width = 0, height = 0;
        if (std::sscanf(sizes[s], "%dx%d", &width, &height) != 2) die(std::string("not a size: ") + sizes[s]);
        std::vector<float> blob = photoBlob(bgr, width, height);
        std::vector<Network> nets;
        for (const char *kind : {"opencv", "fp32", "int8"}) nets.push_back(makeNetwork(kind, runtime, models, threads));
        std::map<std::string, std::vector<double>> ms;
        for (auto &n : nets) n.pass(blob, width, height);
        for (int r = 0; r < rounds; r++) {
            for (auto &n : nets) {
                double start = nowMs();
                n.pass(blob, width, height);
                ms[n.name].push_back(nowMs() - start);
            }
        }
        std::printf("%4dx%-4d threads %d:", width, height, threads);
        for (auto &n : nets) std::printf("  %s %.0f ms", n.name.c_str(), median(ms[n.name]));
        std::printf("   (median of %d alternating)\n", rounds);
        for (auto &n : nets)
            if (n.session) CFaceDetect_OnnxSessionClose(n.session);
    }
    CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

// rss LIBRARY MODELS KIND WxH THREADS [PASSES]: resident memory added by
// one network and 3 passes (after the runtime is loaded); then PASSES more
// passes, their median wall ms and the process's CPU ms a pass.
int rss(const char *library, const std::string &models, const std::string &kind, const char *size, int threads,
        int passes) {
    int width = 0, height = 0;
    if (std::sscanf(size, "%dx%d", &width, &height) != 2) die(std::string("not a size: ") + size);
    CFaceDetect_SetNumThreads(threads);
    CFaceDetect_OnnxRuntime *runtime = openRuntime(library);
    std::vector<float> blob(static_cast<size_t>(3) * width * height, 128.f);
    // OpenCV's own first allocations, outside what is measured.
    cv::Mat warm;
    cv::resize(cv::Mat(64, 64, CV_8UC3, cv::Scalar(1, 2, 3)), warm, cv::Size(32, 32));
    double before = rssMiB();
    Network n = makeNetwork(kind, runtime, models, threads);
    double loaded = rssMiB();
    for (int i = 0; i < 3; i++) n.pass(blob, width, height);
    double after = rssMiB();
    std::printf("%s %dx%d threads %d: RSS +%.0f MiB after loading, +%.0f MiB after 3 passes", kind.c_str(), width,
                height, threads, loaded - before, after - before);
    if (passes > 0) {
        std::vector<double> ms;
        std::clock_t cpu = std::clock();
        for (int i = 0; i < passes; i++) {
            double start = nowMs();
            n.pass(blob, width, height);
            ms.push_back(nowMs() - start);
        }
        double cpuMs = 1000.0 * static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
        std::printf("; %d passes: median %.0f ms wall, %.0f ms CPU a pass, RSS +%.0f MiB", passes, median(ms),
                    cpuMs / passes, rssMiB() - before);
    }
    std::printf("\n");
    return 0;
}

// shared LIBRARY MODEL WxH PASSES MODE THREADS: WORKERS threads (default
// 2) each running PASSES passes, on one session (MODE shared) or one
// session each (MODE each), THREADS intra-op threads a session. Prints the
// wall time a pass (all workers' passes over the wall time) and the RSS added.
int sharedSessions(const char *library, const char *model, const char *size, int passes, const std::string &mode,
                   int threads) {
    int width = 0, height = 0;
    if (std::sscanf(size, "%dx%d", &width, &height) != 2) die(std::string("not a size: ") + size);
    CFaceDetect_OnnxRuntime *runtime = openRuntime(library);
    std::vector<float> blob(static_cast<size_t>(3) * width * height, 128.f);
    double before = rssMiB();
    const char *env = std::getenv("WORKERS");
    const int count = env ? std::max(1, std::atoi(env)) : 2;
    std::vector<CFaceDetect_OnnxSession *> sessions;
    for (int w = 0; w < (mode == "each" ? count : 1); w++) sessions.push_back(openSession(runtime, model, threads));
    // Every pass's outputs against one pass run alone: passes at once on
    // one session must not change a byte.
    const auto alone = runOnce(sessions[0], blob, width, height);
    std::atomic<int> differ{0};
    double start = nowMs();
    std::vector<std::thread> workers;
    for (int w = 0; w < count; w++) {
        CFaceDetect_OnnxSession *s = sessions[mode == "each" ? w : 0];
        workers.emplace_back([&, s] {
            for (int i = 0; i < passes; i++) differ += !sameBytes(runOnce(s, blob, width, height), alone);
        });
    }
    for (auto &t : workers) t.join();
    double wall = nowMs() - start;
    std::printf("%s, %d threads x %d passes at %dx%d, intra-op %d: %.0f ms a pass of wall time, RSS +%.0f MiB; "
                "%d passes differ from one run alone\n",
                mode == "each" ? "a session each" : "one session shared", count, passes, width, height, threads,
                wall / (static_cast<double>(count) * passes), rssMiB() - before, differ.load());
    for (auto *s : sessions) CFaceDetect_OnnxSessionClose(s);
    CFaceDetect_OnnxRuntimeClose(runtime);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    std::string command = argc > 1 ? argv[1] : "";
    if (command == "check" && argc == 5) return check(argv[2], argv[3], argv[4]);
    if (command == "detect" && argc >= 7)
        return detect(argv[2], argv[3], std::strtof(argv[4], nullptr), std::atoi(argv[5]), argc - 6, argv + 6);
    if (command == "time" && argc >= 8)
        return timePasses(argv[2], argv[3], argv[4], std::atoi(argv[5]), std::atoi(argv[6]), argc - 7, argv + 7);
    if (command == "rss" && (argc == 7 || argc == 8))
        return rss(argv[2], argv[3], argv[4], argv[5], std::atoi(argv[6]), argc == 8 ? std::atoi(argv[7]) : 0);
    if (command == "shared" && argc == 8)
        return sharedSessions(argv[2], argv[3], argv[4], std::atoi(argv[5]), argv[6], std::atoi(argv[7]));
    std::fprintf(stderr, "usage: see scripts/centerface-runtime\n");
    return 64;
}
