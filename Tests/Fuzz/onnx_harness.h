// ONNX Runtime's shim (onnx.cpp) for shim_harness.c with SHIM_HARNESS_MAIN:
// the runtime and CenterFace on it opened after the calls that must fail,
// then YuNet (yunet_harness.h), the face mesh (mesh_harness.h) and the
// size-free copies of fixed-size models (sizefree_harness.h). Not in the
// fuzzer: a pass costs too much there. Included once, by shim_harness.c only.
#ifndef SHIM_ONNX_HARNESS_H
#define SHIM_ONNX_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

#include "CFaceDetect.h"

// CenterFace through ONNX Runtime, when its library is there
// ($SHIM_ONNXRUNTIME, else lib/: scripts/fetch-onnxruntime) and the int8
// model too (models/: scripts/make-centerface-models); the library is not
// instrumented, only the shim's calls into it are.
static CFaceDetect_OnnxRuntime *onnx_runtime;
static CFaceDetect_CenterFace *centerface_onnx;

/// A runtime call that must fail: its message is freed, a success is an error.
static void must_fail(const char *what, int status, char *message) {
    if (status == CFaceDetect_OK) {
        fprintf(stderr, "onnx: %s did not fail\n", what);
        exit(2);
    }
    CFaceDetect_Free(message);
}

#include "mesh_harness.h"
#include "sizefree_harness.h"
#include "yunet_harness.h"

/// A session on `model` with the options facecrop opens CenterFace with
/// (the runtime's shared arena grown by the size asked, no memory
/// pattern), after the ones that must fail: a missing model, `library` as
/// the model; then runs that must fail (an unknown output, a size the
/// network refuses) and one that must give the output sizes of a 32 x 32
/// canvas.
static void onnx_session_checks(const char *library, const char *model) {
    CFaceDetect_OnnxOptions options = {1, 99, 0, 1, 0, 1, 1};
    CFaceDetect_OnnxSession *session = NULL;
    char *message = NULL;
    must_fail("a missing model", CFaceDetect_OnnxSessionNew(onnx_runtime, "models/no-such.onnx", &options, &session,
                                                            &message), message);
    message = NULL;
    must_fail("a file that is no model", CFaceDetect_OnnxSessionNew(onnx_runtime, library, &options, &session, &message),
              message);
    message = NULL;
    if (CFaceDetect_OnnxSessionNew(onnx_runtime, model, &options, &session, &message) != CFaceDetect_OK) {
        fprintf(stderr, "onnx: %s\n", message ? message : "?");
        exit(2);
    }
    float input[3 * 33 * 33] = {0};
    CFaceDetect_OnnxOutput outputs[4];
    const char *unknown[1] = {"no-such-output"};
    message = NULL;
    must_fail("an unknown output", CFaceDetect_OnnxSessionRun(session, input, 3, 32, 32, unknown, 1, outputs, &message),
              message);
    CFaceDetect_OnnxOutputsFree(outputs, 1);
    const char *names[4] = {"537", "538", "539", "540"};
    message = NULL;
    must_fail("a size the network refuses",
              CFaceDetect_OnnxSessionRun(session, input, 3, 33, 33, names, 4, outputs, &message), message);
    CFaceDetect_OnnxOutputsFree(outputs, 4);
    message = NULL;
    if (CFaceDetect_OnnxSessionRun(session, input, 3, 32, 32, names, 4, outputs, &message) != CFaceDetect_OK ||
        outputs[0].count != 64 || outputs[3].count != 640) {
        fprintf(stderr, "onnx: a 32 x 32 run: %s\n", message ? message : "wrong output sizes");
        exit(2);
    }
    CFaceDetect_OnnxOutputsFree(outputs, 4);
    CFaceDetect_OnnxSessionClose(session);
}

/// Opens ONNX Runtime and CenterFace on it, after the calls that must fail:
/// a missing library, a file that is no library, and the session's checks.
static void onnx_start(void) {
    const char *library = getenv("SHIM_ONNXRUNTIME");
    if (!library) library = "lib/libonnxruntime.so.1.32.0";
    const char *model = getenv("SHIM_CENTERFACE_INT8");
    if (!model) model = "models/centerface-int8.onnx";
    FILE *probe = fopen(library, "rb");
    FILE *probe_model = fopen(model, "rb");
    if (probe) fclose(probe);
    if (probe_model) fclose(probe_model);
    if (!probe || !probe_model) {
        fprintf(stderr, "shim harness: no %s or %s; CenterFace through ONNX Runtime left out\n", library, model);
        return;
    }
    char *message = NULL;
    CFaceDetect_OnnxRuntime *none = NULL;
    must_fail("a missing library", CFaceDetect_OnnxRuntimeOpen("lib/no-such-library.so", &none, &message), message);
    message = NULL;
    must_fail("a file that is no library", CFaceDetect_OnnxRuntimeOpen(model, &none, &message), message);
    message = NULL;
    if (CFaceDetect_OnnxRuntimeOpen(library, &onnx_runtime, &message) != CFaceDetect_OK) {
        fprintf(stderr, "onnx: %s\n", message ? message : "?");
        exit(2);
    }
    onnx_session_checks(library, model);
    CFaceDetect_OnnxOptions options = {1, 99, 0, 1, 0, 1, 1};
    message = NULL;
    if (CFaceDetect_CenterFaceNewOnnx(onnx_runtime, model, &options, CFaceDetect_CanvasTight, &centerface_onnx,
                                      &message) != CFaceDetect_OK) {
        fprintf(stderr, "onnx centerface: %s\n", message ? message : "?");
        exit(2);
    }
    yunet_start(onnx_runtime, model);
    mesh_start(onnx_runtime, model);
    sizefree_start(onnx_runtime, library);
}

/// Closes what onnx_start opened, the runtime last.
static void onnx_finish(void) {
    CFaceDetect_CenterFaceClose(centerface_onnx);
    CFaceDetect_YuNetClose(yunet_onnx);
    CFaceDetect_FaceMeshClose(face_mesh);
    CFaceDetect_OnnxRuntimeClose(onnx_runtime);
}
#endif
