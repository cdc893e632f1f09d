// Internal to CFaceDetect (C++ only, not in include/): a run of an ONNX
// Runtime session whose outputs are read where the runtime wrote them, for
// a network that runs on every photo. CFaceDetect_OnnxSessionRun copies
// them out into fresh memory: CenterFace's four maps are 3 MB at a
// 1024 x 1024 canvas, above malloc's mmap threshold (Command.tuneMemory),
// so every pass took them as freshly zeroed pages; read in place they stay
// in the session's memory arena, reused from pass to pass.
#ifndef CFACEDETECT_ONNX_HPP
#define CFACEDETECT_ONNX_HPP

#include "CFaceDetect.h"

#include <functional>

namespace cfacedetect {

// Runs `session` on `input` (1 x `channels` x `height` x `width` floats,
// read only) and hands `read` the outputs named `names`, in that order:
// each one's shape and values, the values the runtime's own and valid only
// while `read` runs (null for an empty output). Throws a Failure: the
// runtime's words when it fails (CFaceDetect_RuntimeError), a name that is
// not an output's (CFaceDetect_BadArgument).
void runOnnx(CFaceDetect_OnnxSession &session, const float *input, int channels, int height, int width,
             const char *const *names, size_t count,
             const std::function<void(const CFaceDetect_OnnxOutput *outputs)> &read);

} // namespace cfacedetect

#endif
