// ONNX Runtime through its C API, loaded at run time (dlopen). See
// include/CFaceDetectRuntime.h; the entry points called are declared in
// ort_api.hpp.
//
// Why at run time: the library is 35 MB that only the network detectors
// need, Debian has no package of it, and the cascade path must keep working
// on a machine without it. Why the C API: it is the runtime's stable ABI
// (one exported symbol, a table of functions that only grows); its C++
// wrapper is header-only over the same table.
//
// The library is never unloaded (dlclose): its thread pools and static
// state live until the process ends, as they would if it were linked.
#include "onnx.hpp"
#include "ort_api.hpp"
#include "sizefree.hpp"
#include "status.hpp"

#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace cfacedetect;

struct CFaceDetect_OnnxRuntime {
    ort::Api api{nullptr};
    ort::Env *env = nullptr;
    ort::MemoryInfo *cpu = nullptr;
    const char *version = nullptr;

    ~CFaceDetect_OnnxRuntime() {
        if (cpu) api.release(cpu);
        if (env) api.release(env);
    }
};

struct CFaceDetect_OnnxSession {
    CFaceDetect_OnnxRuntime *runtime = nullptr;
    ort::Session *session = nullptr;
    std::string input;
    // The input's shape as the model declares it; -1: any size there.
    std::vector<int64_t> inputShape;
    std::vector<std::string> outputs;

    ~CFaceDetect_OnnxSession() {
        if (session) runtime->api.release(session);
    }
};

namespace {

// The runtime's words for `s`, without the line break some end with.
std::string words(const ort::Api &api, const ort::Status *s) {
    const char *text = api.errorMessage(s);
    std::string w(text ? text : "no message");
    while (!w.empty() && (w.back() == '\n' || w.back() == ' ')) w.pop_back();
    return w;
}

// Throws a Failure of `status` ("what: the runtime's words") when `s` is
// an error; releases it.
void check(const ort::Api &api, ort::Status *s, int status, const std::string &what) {
    if (!s) return;
    std::string text = what + ": " + words(api, s);
    api.release(s);
    throw Failure(status, text);
}

// One runtime object, released when this goes out of scope.
template <typename T> class Owned {
  public:
    explicit Owned(const ort::Api &api) : api_(api) {}
    ~Owned() {
        if (p) api_.release(p);
    }
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    T *p = nullptr;

  private:
    const ort::Api &api_;
};

// A name the runtime allocated, copied and freed.
std::string takeName(const ort::Api &api, ort::Allocator *allocator, char *name) {
    std::string copy(name ? name : "");
    if (name) {
        if (ort::Status *s = api.allocatorFree(allocator, name)) api.release(s);
    }
    return copy;
}

// The shape the model declares for its first input, -1 for a dimension
// of any size (a symbolic one).
std::vector<int64_t> declaredShape(const ort::Api &api, const ort::Session *session) {
    const int err = CFaceDetect_RuntimeError;
    Owned<ort::TypeInfo> type(api);
    check(api, api.inputTypeInfo(session, 0, &type.p), err, "ONNX Runtime: input type");
    const ort::TensorTypeAndShapeInfo *tensor = nullptr;
    check(api, api.tensorInfo(type.p, &tensor), err, "ONNX Runtime: input type");
    if (!tensor) return {};
    size_t rank = 0;
    check(api, api.dimensionsCount(tensor, &rank), err, "ONNX Runtime: input rank");
    std::vector<int64_t> shape(rank, -1);
    if (rank > 0) check(api, api.dimensions(tensor, shape.data(), rank), err, "ONNX Runtime: input shape");
    for (auto &d : shape) d = d > 0 ? d : -1;
    return shape;
}

// The session of the model at `path`: from the file, or with `sizeFree`
// from its size-free copy made in memory when its image input is fixed
// (sizefree.hpp). The runtime's status when it cannot load it; a Failure
// when the file cannot be read or its fixed input cannot be made free.
ort::Status *openSession(const CFaceDetect_OnnxRuntime &runtime, const std::string &path, bool sizeFree,
                         const ort::SessionOptions *options, ort::Session **session) {
    const ort::Api &api = runtime.api;
    if (!sizeFree) return api.createSession(runtime.env, path.c_str(), options, session);
    std::ifstream file(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (!file.good() && !file.eof()) throw Failure(CFaceDetect_LoadFailed, "cannot read the model file: " + path);
    std::string copy;
    try {
        if (!sizeFreeModel(bytes, copy)) return api.createSession(runtime.env, path.c_str(), options, session);
    } catch (const std::runtime_error &e) {
        throw Failure(CFaceDetect_LoadFailed, std::string("a model whose input size is fixed, which cannot be made to "
                                                          "run at any size (") + e.what() + "): " + path);
    }
    return api.createSessionFromArray(runtime.env, copy.data(), copy.size(), options, session);
}

// Registers the runtime's one shared arena on `env`, grown by the size asked
// (CreateArenaCfgV2's arena_extend_strategy 1, kSameAsRequested, in
// onnxruntime_c_api.h); a session's own grows by powers of two. A session
// uses it with "session.use_env_allocators" = "1" (session options config
// keys header). CenterFace's 1280 x 1280 pass asks for two 52 MB buffers at
// once, which its own arena took as 64 MiB regions: on 26 photos of 12 MP
// peak RSS 319-320 -> 302-305 MiB, the same faults and CPU; the face mesh in
// it too grew it to 349 (docs/measurements.md, "CenterFace's arena grown by
// the size asked").
void registerSizedArena(const ort::Api &api, ort::Env *env) {
    const int err = CFaceDetect_RuntimeError;
    const char *keys[] = {"arena_extend_strategy"};
    const size_t values[] = {1};
    Owned<ort::ArenaCfg> config(api);
    check(api, api.createArenaCfg(keys, values, 1, &config.p), err, "ONNX Runtime: arena settings");
    Owned<ort::MemoryInfo> memory(api);
    check(api, api.cpuMemoryInfo(ort::ArenaAllocator, ort::MemTypeDefault, &memory.p), err,
          "ONNX Runtime: describing the arena's memory");
    check(api, api.registerAllocator(env, memory.p, config.p), err, "ONNX Runtime: the shared arena");
}

// `options` as the runtime's session options `opts`.
void configure(const ort::Api &api, const CFaceDetect_OnnxOptions &options, ort::SessionOptions *opts) {
    const int err = CFaceDetect_RuntimeError;
    check(api, api.setExecutionMode(opts, ort::Sequential), err, "ONNX Runtime: execution mode");
    check(api, api.setIntraOpThreads(opts, options.intra_op_threads), err, "ONNX Runtime: intra-op threads");
    check(api, api.setInterOpThreads(opts, 1), err, "ONNX Runtime: inter-op threads");
    check(api, api.setGraphOptimizationLevel(opts, options.optimization_level), err,
          "ONNX Runtime: optimization level");
    if (!options.memory_arena) check(api, api.disableCpuMemArena(opts), err, "ONNX Runtime: memory arena");
    if (options.memory_arena && options.sized_arena) {
        check(api, api.addConfigEntry(opts, "session.use_env_allocators", "1"), err, "ONNX Runtime: the shared arena");
    }
    if (options.no_memory_pattern) check(api, api.disableMemPattern(opts), err, "ONNX Runtime: memory pattern");
    const char *spin = options.allow_spinning ? "1" : "0";
    check(api, api.addConfigEntry(opts, "session.intra_op.allow_spinning", spin), err, "ONNX Runtime: spinning");
    check(api, api.addConfigEntry(opts, "session.inter_op.allow_spinning", spin), err, "ONNX Runtime: spinning");
}

} // namespace

extern "C" int CFaceDetect_OnnxRuntimeOpen(const char *library_path, CFaceDetect_OnnxRuntime **runtime,
                                           char **message) {
    return guardedAs(CFaceDetect_RuntimeError, "ONNX Runtime: ", message, [&]() -> int {
        if (!library_path || !runtime) return report(CFaceDetect_BadArgument, message, "no library path");
        *runtime = nullptr;
        const std::string path(library_path);
        struct stat info;
        if (stat(library_path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_RuntimeUnavailable, message, "ONNX Runtime library not found: " + path);
        }
        dlerror();
        void *library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *why = dlerror();
            return report(CFaceDetect_RuntimeUnavailable, message,
                          "cannot load the ONNX Runtime library " + path + ": " + (why ? why : "dlopen failed"));
        }
        auto getBase = reinterpret_cast<ort::GetApiBase>(dlsym(library, "OrtGetApiBase"));
        const ort::ApiBase *base = getBase ? getBase() : nullptr;
        if (!base) {
            return report(CFaceDetect_RuntimeUnavailable, message,
                          "not an ONNX Runtime library (no OrtGetApiBase): " + path);
        }
        const char *version = base->getVersionString();
        if (!version || std::strcmp(version, CFaceDetect_OnnxRuntimeVersion) != 0) {
            return report(CFaceDetect_RuntimeUnavailable, message,
                          "ONNX Runtime " + std::string(version ? version : "of no known release") + " at " + path +
                              ", but facecrop needs " CFaceDetect_OnnxRuntimeVersion);
        }
        const void *table = base->getApi(ort::kApiVersion);
        if (!table) {
            return report(CFaceDetect_RuntimeUnavailable, message,
                          "ONNX Runtime at " + path + " does not serve C API version " +
                              std::to_string(ort::kApiVersion));
        }
        auto made = std::make_unique<CFaceDetect_OnnxRuntime>();
        made->api = ort::Api(table);
        made->version = version;
        const ort::Api &api = made->api;
        // Its own log only for what would end the process: every error
        // comes back as a status, and a message, from the call that failed.
        check(api, api.createEnv(ort::LogFatal, "facecrop", &made->env), CFaceDetect_RuntimeError,
              "ONNX Runtime: creating its environment");
        check(api, api.cpuMemoryInfo(ort::DeviceAllocator, ort::MemTypeDefault, &made->cpu),
              CFaceDetect_RuntimeError, "ONNX Runtime: describing CPU memory");
        registerSizedArena(api, made->env);
        *runtime = made.release();
        return CFaceDetect_OK;
    });
}

extern "C" const char *CFaceDetect_OnnxRuntimeVersionOf(const CFaceDetect_OnnxRuntime *runtime) {
    return runtime ? runtime->version : nullptr;
}

extern "C" void CFaceDetect_OnnxRuntimeClose(CFaceDetect_OnnxRuntime *runtime) {
    delete runtime;
}

extern "C" int CFaceDetect_OnnxSessionNew(CFaceDetect_OnnxRuntime *runtime, const char *model_path,
                                          const CFaceDetect_OnnxOptions *options, CFaceDetect_OnnxSession **session,
                                          char **message) {
    return guardedAs(CFaceDetect_RuntimeError, "ONNX Runtime: ", message, [&]() -> int {
        if (!runtime || !model_path || !options || !session || options->intra_op_threads < 1 ||
            options->intra_op_threads > 256) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the ONNX session");
        }
        *session = nullptr;
        const std::string path(model_path);
        struct stat info;
        if (stat(model_path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_LoadFailed, message, "model file not found: " + path);
        }
        const ort::Api &api = runtime->api;
        Owned<ort::SessionOptions> opts(api);
        const int err = CFaceDetect_RuntimeError;
        check(api, api.createSessionOptions(&opts.p), err, "ONNX Runtime: session options");
        configure(api, *options, opts.p);
        auto made = std::make_unique<CFaceDetect_OnnxSession>();
        made->runtime = runtime;
        if (ort::Status *s = openSession(*runtime, path, options->size_free != 0, opts.p, &made->session)) {
            std::string why = words(api, s);
            api.release(s);
            return report(CFaceDetect_LoadFailed, message,
                          "not an ONNX model ONNX Runtime can load: " + path + " (" + why + ")");
        }
        ort::Allocator *allocator = nullptr;
        check(api, api.defaultAllocator(&allocator), err, "ONNX Runtime: allocator");
        size_t inputs = 0, outputs = 0;
        check(api, api.inputCount(made->session, &inputs), err, "ONNX Runtime: inputs");
        check(api, api.outputCount(made->session, &outputs), err, "ONNX Runtime: outputs");
        if (inputs != 1) {
            return report(CFaceDetect_LoadFailed, message,
                          "the model has " + std::to_string(inputs) + " inputs, not one image: " + path);
        }
        char *name = nullptr;
        check(api, api.inputName(made->session, 0, allocator, &name), err, "ONNX Runtime: input name");
        made->input = takeName(api, allocator, name);
        made->inputShape = declaredShape(api, made->session);
        for (size_t i = 0; i < outputs; i++) {
            name = nullptr;
            check(api, api.outputName(made->session, i, allocator, &name), err, "ONNX Runtime: output name");
            made->outputs.push_back(takeName(api, allocator, name));
        }
        *session = made.release();
        return CFaceDetect_OK;
    });
}

extern "C" size_t CFaceDetect_OnnxSessionInputShape(const CFaceDetect_OnnxSession *session, int64_t *shape,
                                                    size_t capacity) {
    if (!session) return 0;
    for (size_t i = 0; i < capacity && i < session->inputShape.size(); i++) shape[i] = session->inputShape[i];
    return session->inputShape.size();
}

namespace {

// Whether every one of `names` is an output of the model: the message of
// the first that is not, or empty.
std::string unknownOutput(const CFaceDetect_OnnxSession &session, const char *const *names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        bool known = false;
        for (const auto &name : session.outputs) known = known || (names[i] && name == names[i]);
        if (!known) return std::string("the model has no output '") + (names[i] ? names[i] : "") + "'";
    }
    return {};
}

// The float tensor `value` (the output called `name`) as `into`: its
// shape, and its values where the runtime holds them.
void viewOutput(const ort::Api &api, ort::Value *value, const char *name, CFaceDetect_OnnxOutput &into) {
    const int err = CFaceDetect_RuntimeError;
    int tensor = 0;
    check(api, api.isTensor(value, &tensor), err, "ONNX Runtime: output");
    Owned<ort::TensorTypeAndShapeInfo> shapeInfo(api);
    check(api, api.typeAndShape(value, &shapeInfo.p), err, "ONNX Runtime: output shape");
    ort::ElementType type{};
    size_t rank = 0, count = 0;
    check(api, api.elementType(shapeInfo.p, &type), err, "ONNX Runtime: output type");
    check(api, api.dimensionsCount(shapeInfo.p, &rank), err, "ONNX Runtime: output rank");
    if (!tensor || type != ort::ElementFloat || rank > 8) {
        throw Failure(err, std::string("ONNX Runtime: output '") + name + "' is not a float tensor of rank 8 or less");
    }
    check(api, api.dimensions(shapeInfo.p, into.shape, rank), err, "ONNX Runtime: output shape");
    check(api, api.elementCount(shapeInfo.p, &count), err, "ONNX Runtime: output size");
    void *data = nullptr;
    if (count > 0) check(api, api.tensorData(value, &data), err, "ONNX Runtime: output data");
    into.rank = rank;
    into.count = count;
    into.values = static_cast<float *>(data);
}

// The values of a run's outputs, released when this goes out of scope.
struct Values {
    const ort::Api &api;
    std::vector<ort::Value *> values;
    ~Values() {
        for (auto *v : values)
            if (v) api.release(v);
    }
};

} // namespace

void cfacedetect::runOnnx(CFaceDetect_OnnxSession &session, const float *input, int channels, int height, int width,
                          const char *const *names, size_t count,
                          const std::function<void(const CFaceDetect_OnnxOutput *outputs)> &read) {
    const std::string unknown = unknownOutput(session, names, count);
    if (!unknown.empty()) throw Failure(CFaceDetect_BadArgument, unknown);
    const ort::Api &api = session.runtime->api;
    const int err = CFaceDetect_RuntimeError;
    const int64_t shape[4] = {1, channels, height, width};
    const size_t bytes = sizeof(float) * static_cast<size_t>(channels) * height * width;
    Owned<ort::Value> in(api);
    // The runtime only reads an input; it takes a non-const pointer.
    check(api, api.tensorWithData(session.runtime->cpu, const_cast<float *>(input), bytes, shape, 4,
                                  ort::ElementFloat, &in.p),
          err, "ONNX Runtime: input tensor");
    Values out{api, std::vector<ort::Value *>(count, nullptr)};
    const char *inputName = session.input.c_str();
    const ort::Value *inputs[1] = {in.p};
    check(api, api.run(session.session, &inputName, inputs, 1, names, count, out.values.data()), err, "ONNX Runtime");
    std::vector<CFaceDetect_OnnxOutput> views(count, CFaceDetect_OnnxOutput{});
    for (size_t i = 0; i < count; i++) viewOutput(api, out.values[i], names[i], views[i]);
    read(views.data());
}

extern "C" int CFaceDetect_OnnxSessionRun(CFaceDetect_OnnxSession *session, const float *input, int channels,
                                          int height, int width, const char *const *output_names,
                                          size_t output_count, CFaceDetect_OnnxOutput *outputs, char **message) {
    if (outputs) {
        for (size_t i = 0; i < output_count; i++) outputs[i] = CFaceDetect_OnnxOutput{};
    }
    return guardedAs(CFaceDetect_RuntimeError, "ONNX Runtime: ", message, [&]() -> int {
        if (!session || !input || channels < 1 || height < 1 || width < 1 || !output_names || !outputs ||
            output_count < 1) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the ONNX run");
        }
        runOnnx(*session, input, channels, height, width, output_names, output_count,
                [&](const CFaceDetect_OnnxOutput *views) {
                    for (size_t i = 0; i < output_count; i++) {
                        outputs[i] = views[i];
                        outputs[i].values = nullptr;
                        if (views[i].count == 0) continue;
                        outputs[i].values = static_cast<float *>(std::malloc(views[i].count * sizeof(float)));
                        if (!outputs[i].values) throw std::bad_alloc();
                        std::memcpy(outputs[i].values, views[i].values, views[i].count * sizeof(float));
                    }
                });
        return CFaceDetect_OK;
    });
}

extern "C" void CFaceDetect_OnnxOutputsFree(CFaceDetect_OnnxOutput *outputs, size_t count) {
    if (!outputs) return;
    for (size_t i = 0; i < count; i++) {
        std::free(outputs[i].values);
        outputs[i] = CFaceDetect_OnnxOutput{};
    }
}

extern "C" void CFaceDetect_OnnxSessionClose(CFaceDetect_OnnxSession *session) {
    delete session;
}
