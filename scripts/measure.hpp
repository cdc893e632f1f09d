// What the measuring tools share (scripts/centerface-runtime.cpp,
// yunet-runtime.cpp, embed-runtime.cpp; built with g++ by their scripts,
// outside facecrop): failing with a message, clocks, resident memory, a
// median, and an ONNX Runtime session as the shim's callers open one.
#pragma once

#include "CFaceDetect.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

namespace measure {

// The tool's name, for its messages: each tool defines it.
extern const char *const kTool;

[[noreturn]] inline void die(const std::string &what, char *message = nullptr) {
    std::fprintf(stderr, "%s: %s%s%s\n", kTool, what.c_str(), message ? ": " : "", message ? message : "");
    std::free(message);
    std::exit(1);
}

inline double nowMs() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// This thread's CPU time in ms.
inline double cpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

// Resident set in MiB, from /proc/self/status.
inline double rssMiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
    }
    return 0;
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

inline CFaceDetect_OnnxRuntime *openRuntime(const char *library) {
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    char *message = nullptr;
    if (CFaceDetect_OnnxRuntimeOpen(library, &runtime, &message) != CFaceDetect_OK) die("runtime", message);
    return runtime;
}

// The shim's options as facecrop sets them, but the memory arena on:
// SPIN=1 lets the intra-op threads spin, ARENA=0 turns the arena off.
inline CFaceDetect_OnnxOptions options(int threads) {
    CFaceDetect_OnnxOptions o{};
    o.intra_op_threads = threads;
    o.optimization_level = 99;
    o.allow_spinning = 0;
    o.memory_arena = 1;
    if (const char *spin = std::getenv("SPIN")) o.allow_spinning = std::atoi(spin);
    if (const char *arena = std::getenv("ARENA")) o.memory_arena = std::atoi(arena);
    return o;
}

inline CFaceDetect_OnnxSession *openSession(CFaceDetect_OnnxRuntime *runtime, const char *model, int threads) {
    CFaceDetect_OnnxSession *session = nullptr;
    char *message = nullptr;
    CFaceDetect_OnnxOptions o = options(threads);
    if (CFaceDetect_OnnxSessionNew(runtime, model, &o, &session, &message) != CFaceDetect_OK) die(model, message);
    return session;
}

} // namespace measure
