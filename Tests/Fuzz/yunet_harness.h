// YuNet through ONNX Runtime (yunet.cpp over onnx.cpp's session) for
// shim_harness.c with SHIM_HARNESS_MAIN: the model's checks (a file that is
// no YuNet model, one whose input size is fixed) and a detection on each
// file's pixels, whole and through a narrower view of the same rows (a
// stride wider than the width). Included once, by onnx_harness.h only.
#ifndef SHIM_YUNET_HARNESS_H
#define SHIM_YUNET_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

#include "CFaceDetect.h"

static CFaceDetect_YuNet *yunet_onnx;

/// Opens YuNet on `runtime` when its size-free model is there ($SHIM_YUNET,
/// else models/yunet-any.onnx: scripts/fetch-yunet), after the models it
/// must refuse: `other` (another network's) and the shipped one (input fixed
/// at 640 x 640) when not made size-free (sizefree_harness.h loads it so),
/// when that is there.
static void yunet_start(CFaceDetect_OnnxRuntime *runtime, const char *other) {
    const char *model = getenv("SHIM_YUNET");
    if (!model) model = "models/yunet-any.onnx";
    const char *shipped = "models/face_detection_yunet_2023mar.onnx";
    FILE *probe = fopen(model, "rb");
    if (!probe) {
        fprintf(stderr, "shim harness: no %s; YuNet through ONNX Runtime left out\n", model);
        return;
    }
    fclose(probe);
    CFaceDetect_OnnxOptions options = {1, 99, 0, 1, 0, 1, 1};
    CFaceDetect_YuNet *refused = NULL;
    char *message = NULL;
    if (CFaceDetect_YuNetNew(runtime, other, &options, &refused, &message) == CFaceDetect_OK) {
        fprintf(stderr, "yunet: %s was taken for a YuNet model\n", other);
        exit(2);
    }
    CFaceDetect_Free(message);
    message = NULL;
    probe = fopen(shipped, "rb");
    if (probe) {
        fclose(probe);
        if (CFaceDetect_YuNetNew(runtime, shipped, &options, &refused, &message) == CFaceDetect_OK) {
            fprintf(stderr, "yunet: %s, whose input size is fixed, was taken\n", shipped);
            exit(2);
        }
        CFaceDetect_Free(message);
        message = NULL;
    }
    if (CFaceDetect_YuNetNew(runtime, model, &options, &yunet_onnx, &message) != CFaceDetect_OK) {
        fprintf(stderr, "yunet: %s\n", message ? message : "?");
        exit(2);
    }
}

static void yunet_once(const uint8_t *rgb, int width, int height) {
    if (!yunet_onnx) return;
    for (int narrow = 0; narrow < 2; narrow++) {
        int w = narrow ? width / 2 : width;
        if (w < 1) continue;
        CFaceDetect_YuNetFace *faces = NULL;
        size_t count = 0;
        char *message = NULL;
        if (CFaceDetect_YuNetDetect(yunet_onnx, rgb, w, height, (size_t)width * 3, 0.5f, 0.3f, &faces, &count,
                                    &message) != CFaceDetect_OK) {
            CFaceDetect_Free(message);
        }
        CFaceDetect_Free(faces);
    }
}

#endif
