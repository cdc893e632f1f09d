// Internal to CFaceDetect (onnx.cpp only): the part of ONNX Runtime's C API
// that the shim calls, declared here from the API's documentation instead of
// Microsoft's header (which the project does not ship: the library is loaded
// at run time, and only when a network detector needs it).
//
// The C API is one entry point, OrtGetApiBase(), whose GetApi(version) hands
// out a table of function pointers (OrtApi) in a fixed order: entries are
// only ever appended, so an entry's position never changes between releases.
// We read the table as an array of slots and call each entry through a typed
// accessor at its documented position. The positions are those of the
// table as of API version 13 (ONNX Runtime 1.13), which has every entry
// called here; ONNX Runtime 1.32 serves API versions 1 to 32 with the one
// table. `scripts/centerface-runtime check` and scripts/sanitize call
// them against the pinned library (a wrong position crashes or fails there).
#ifndef CFACEDETECT_ORT_API_HPP
#define CFACEDETECT_ORT_API_HPP

#include <cstddef>
#include <cstdint>

namespace cfacedetect::ort {

// The table layout the slots below follow (OrtApiBase::GetApi's argument).
constexpr uint32_t kApiVersion = 13;

// Opaque objects of the runtime; only ever handled through pointers.
struct Env;
struct Status; // nullptr means success
struct Session;
struct SessionOptions;
struct Value;
struct MemoryInfo;
struct TypeInfo;
struct TensorTypeAndShapeInfo;
struct Allocator;
struct ArenaCfg;

// The values of the enums that cross the calls made here.
enum LoggingLevel : int { LogVerbose = 0, LogInfo = 1, LogWarning = 2, LogError = 3, LogFatal = 4 };
enum ExecutionMode : int { Sequential = 0, Parallel = 1 };
enum AllocatorType : int { DeviceAllocator = 0, ArenaAllocator = 1 };
enum MemType : int { MemTypeDefault = 0 };
enum ElementType : int { ElementFloat = 1 };
enum ValueType : int { TypeTensor = 1 };

// OrtApiBase: two function pointers, in this order.
struct ApiBase {
    const void *(*getApi)(uint32_t version) noexcept;
    const char *(*getVersionString)() noexcept;
};
using GetApiBase = const ApiBase *(*)() noexcept;

// Positions in the OrtApi table of the entries called here.
enum Slot : std::size_t {
    GetErrorMessage = 2,                    // const char *(const OrtStatus *)
    CreateEnv = 3,                          // (level, logid, OrtEnv **)
    CreateSession = 7,                      // (env, model_path, options, OrtSession **)
    CreateSessionFromArray = 8,             // (env, model bytes, length, options, OrtSession **)
    Run = 9,                                // (session, run_options, in names, in values, n, out names, n, out values)
    CreateSessionOptions = 10,              // (OrtSessionOptions **)
    SetSessionExecutionMode = 13,           // (options, ExecutionMode)
    DisableMemPattern = 17,                 // (options)
    DisableCpuMemArena = 19,                // (options)
    SetSessionGraphOptimizationLevel = 23,  // (options, level)
    SetIntraOpNumThreads = 24,              // (options, int)
    SetInterOpNumThreads = 25,              // (options, int)
    SessionGetInputCount = 30,              // (session, size_t *)
    SessionGetOutputCount = 31,             // (session, size_t *)
    SessionGetInputTypeInfo = 33,           // (session, index, OrtTypeInfo **)
    SessionGetInputName = 36,               // (session, index, allocator, char **)
    SessionGetOutputName = 37,              // (session, index, allocator, char **)
    CreateTensorWithDataAsOrtValue = 49,    // (memory info, data, bytes, shape, rank, type, OrtValue **)
    IsTensor = 50,                          // (value, int *)
    GetTensorMutableData = 51,              // (value, void **)
    CastTypeInfoToTensorInfo = 55,          // (type info, const OrtTensorTypeAndShapeInfo **): owned by the type info
    GetTensorElementType = 60,              // (info, type *)
    GetDimensionsCount = 61,                // (info, size_t *)
    GetDimensions = 62,                     // (info, int64_t *, n)
    GetTensorShapeElementCount = 64,        // (info, size_t *)
    GetTensorTypeAndShape = 65,             // (value, OrtTensorTypeAndShapeInfo **)
    CreateCpuMemoryInfo = 69,               // (allocator type, mem type, OrtMemoryInfo **)
    AllocatorFree = 76,                     // (allocator, void *)
    GetAllocatorWithDefaultOptions = 78,    // (OrtAllocator **): not to be freed
    ReleaseEnv = 92,                        // void (OrtEnv *)
    ReleaseStatus = 93,                     // void (OrtStatus *)
    ReleaseMemoryInfo = 94,                 // void (OrtMemoryInfo *)
    ReleaseSession = 95,                    // void (OrtSession *)
    ReleaseValue = 96,                      // void (OrtValue *)
    ReleaseTypeInfo = 98,                   // void (OrtTypeInfo *)
    ReleaseTensorTypeAndShapeInfo = 99,     // void (OrtTensorTypeAndShapeInfo *)
    ReleaseSessionOptions = 100,            // void (OrtSessionOptions *)
    AddSessionConfigEntry = 130,            // (options, key, value)
    CreateAndRegisterAllocator = 144,       // (env, memory info, arena cfg)
    ReleaseArenaCfg = 157,                  // void (OrtArenaCfg *)
    CreateArenaCfgV2 = 164,                 // (keys, size_t values, n, OrtArenaCfg **)
    SlotCount = 165,
};

// The table, with a typed call for each slot above. Every entry that
// returns a Status* gives nullptr on success; the caller owns a non-null one.
class Api {
  public:
    explicit Api(const void *table) : slots_(static_cast<const Entry *>(table)) {}

    const char *errorMessage(const Status *s) const { return call<const char *(*)(const Status *)>(GetErrorMessage)(s); }
    Status *createEnv(LoggingLevel level, const char *logid, Env **out) const {
        return call<Status *(*)(LoggingLevel, const char *, Env **)>(CreateEnv)(level, logid, out);
    }
    Status *createSession(const Env *env, const char *path, const SessionOptions *options, Session **out) const {
        return call<Status *(*)(const Env *, const char *, const SessionOptions *, Session **)>(CreateSession)(
            env, path, options, out);
    }
    Status *createSessionFromArray(const Env *env, const void *data, size_t length, const SessionOptions *options,
                                   Session **out) const {
        using F = Status *(*)(const Env *, const void *, size_t, const SessionOptions *, Session **);
        return call<F>(CreateSessionFromArray)(env, data, length, options, out);
    }
    Status *run(Session *session, const char *const *inputNames, const Value *const *inputs, size_t inputCount,
                const char *const *outputNames, size_t outputCount, Value **outputs) const {
        using F = Status *(*)(Session *, const void *, const char *const *, const Value *const *, size_t,
                              const char *const *, size_t, Value **);
        return call<F>(Run)(session, nullptr, inputNames, inputs, inputCount, outputNames, outputCount, outputs);
    }
    Status *createSessionOptions(SessionOptions **out) const {
        return call<Status *(*)(SessionOptions **)>(CreateSessionOptions)(out);
    }
    Status *setExecutionMode(SessionOptions *o, ExecutionMode mode) const {
        return call<Status *(*)(SessionOptions *, ExecutionMode)>(SetSessionExecutionMode)(o, mode);
    }
    Status *disableMemPattern(SessionOptions *o) const {
        return call<Status *(*)(SessionOptions *)>(DisableMemPattern)(o);
    }
    Status *disableCpuMemArena(SessionOptions *o) const {
        return call<Status *(*)(SessionOptions *)>(DisableCpuMemArena)(o);
    }
    Status *setGraphOptimizationLevel(SessionOptions *o, int level) const {
        return call<Status *(*)(SessionOptions *, int)>(SetSessionGraphOptimizationLevel)(o, level);
    }
    Status *setIntraOpThreads(SessionOptions *o, int threads) const {
        return call<Status *(*)(SessionOptions *, int)>(SetIntraOpNumThreads)(o, threads);
    }
    Status *setInterOpThreads(SessionOptions *o, int threads) const {
        return call<Status *(*)(SessionOptions *, int)>(SetInterOpNumThreads)(o, threads);
    }
    Status *inputCount(const Session *s, size_t *out) const {
        return call<Status *(*)(const Session *, size_t *)>(SessionGetInputCount)(s, out);
    }
    Status *outputCount(const Session *s, size_t *out) const {
        return call<Status *(*)(const Session *, size_t *)>(SessionGetOutputCount)(s, out);
    }
    Status *inputTypeInfo(const Session *s, size_t index, TypeInfo **out) const {
        return call<Status *(*)(const Session *, size_t, TypeInfo **)>(SessionGetInputTypeInfo)(s, index, out);
    }
    Status *tensorInfo(const TypeInfo *t, const TensorTypeAndShapeInfo **out) const {
        return call<Status *(*)(const TypeInfo *, const TensorTypeAndShapeInfo **)>(CastTypeInfoToTensorInfo)(t, out);
    }
    Status *inputName(const Session *s, size_t index, Allocator *a, char **out) const {
        return call<Status *(*)(const Session *, size_t, Allocator *, char **)>(SessionGetInputName)(s, index, a, out);
    }
    Status *outputName(const Session *s, size_t index, Allocator *a, char **out) const {
        return call<Status *(*)(const Session *, size_t, Allocator *, char **)>(SessionGetOutputName)(s, index, a, out);
    }
    Status *tensorWithData(const MemoryInfo *info, void *data, size_t bytes, const int64_t *shape, size_t rank,
                           ElementType type, Value **out) const {
        using F = Status *(*)(const MemoryInfo *, void *, size_t, const int64_t *, size_t, ElementType, Value **);
        return call<F>(CreateTensorWithDataAsOrtValue)(info, data, bytes, shape, rank, type, out);
    }
    Status *isTensor(const Value *v, int *out) const { return call<Status *(*)(const Value *, int *)>(IsTensor)(v, out); }
    Status *tensorData(Value *v, void **out) const {
        return call<Status *(*)(Value *, void **)>(GetTensorMutableData)(v, out);
    }
    Status *elementType(const TensorTypeAndShapeInfo *i, ElementType *out) const {
        return call<Status *(*)(const TensorTypeAndShapeInfo *, ElementType *)>(GetTensorElementType)(i, out);
    }
    Status *dimensionsCount(const TensorTypeAndShapeInfo *i, size_t *out) const {
        return call<Status *(*)(const TensorTypeAndShapeInfo *, size_t *)>(GetDimensionsCount)(i, out);
    }
    Status *dimensions(const TensorTypeAndShapeInfo *i, int64_t *out, size_t n) const {
        return call<Status *(*)(const TensorTypeAndShapeInfo *, int64_t *, size_t)>(GetDimensions)(i, out, n);
    }
    Status *elementCount(const TensorTypeAndShapeInfo *i, size_t *out) const {
        return call<Status *(*)(const TensorTypeAndShapeInfo *, size_t *)>(GetTensorShapeElementCount)(i, out);
    }
    Status *typeAndShape(const Value *v, TensorTypeAndShapeInfo **out) const {
        return call<Status *(*)(const Value *, TensorTypeAndShapeInfo **)>(GetTensorTypeAndShape)(v, out);
    }
    Status *cpuMemoryInfo(AllocatorType type, MemType mem, MemoryInfo **out) const {
        return call<Status *(*)(AllocatorType, MemType, MemoryInfo **)>(CreateCpuMemoryInfo)(type, mem, out);
    }
    Status *allocatorFree(Allocator *a, void *p) const {
        return call<Status *(*)(Allocator *, void *)>(AllocatorFree)(a, p);
    }
    Status *defaultAllocator(Allocator **out) const {
        return call<Status *(*)(Allocator **)>(GetAllocatorWithDefaultOptions)(out);
    }
    Status *addConfigEntry(SessionOptions *o, const char *key, const char *value) const {
        return call<Status *(*)(SessionOptions *, const char *, const char *)>(AddSessionConfigEntry)(o, key, value);
    }
    void release(Env *p) const { call<void (*)(Env *)>(ReleaseEnv)(p); }
    void release(Status *p) const { call<void (*)(Status *)>(ReleaseStatus)(p); }
    void release(MemoryInfo *p) const { call<void (*)(MemoryInfo *)>(ReleaseMemoryInfo)(p); }
    void release(Session *p) const { call<void (*)(Session *)>(ReleaseSession)(p); }
    void release(Value *p) const { call<void (*)(Value *)>(ReleaseValue)(p); }
    void release(TypeInfo *p) const { call<void (*)(TypeInfo *)>(ReleaseTypeInfo)(p); }
    void release(TensorTypeAndShapeInfo *p) const {
        call<void (*)(TensorTypeAndShapeInfo *)>(ReleaseTensorTypeAndShapeInfo)(p);
    }
    Status *createArenaCfg(const char *const *keys, const size_t *values, size_t count, ArenaCfg **out) const {
        using F = Status *(*)(const char *const *, const size_t *, size_t, ArenaCfg **);
        return call<F>(CreateArenaCfgV2)(keys, values, count, out);
    }
    Status *registerAllocator(Env *env, const MemoryInfo *info, const ArenaCfg *cfg) const {
        using F = Status *(*)(Env *, const MemoryInfo *, const ArenaCfg *);
        return call<F>(CreateAndRegisterAllocator)(env, info, cfg);
    }
    void release(ArenaCfg *p) const { call<void (*)(ArenaCfg *)>(ReleaseArenaCfg)(p); }
    void release(SessionOptions *p) const { call<void (*)(SessionOptions *)>(ReleaseSessionOptions)(p); }

  private:
    // A slot holds a function pointer of some type; a function pointer cast
    // to another function pointer type and back is the same pointer.
    using Entry = void (*)();
    template <typename F> F call(Slot slot) const { return reinterpret_cast<F>(slots_[slot]); }
    const Entry *slots_;
};

} // namespace cfacedetect::ort

#endif
