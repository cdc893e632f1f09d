// The face mesh through ONNX Runtime (mesh.cpp over onnx.cpp's sessions) for
// shim_harness.c with SHIM_HARNESS_MAIN: the models' checks (another
// network in either place, a missing file) and runs on each file's grey
// pixels, through an upright chip, a turned one reaching past the edges, a
// narrower view of the same rows (a stride wider than the width), and the
// face network alone (no eyes asked for). Included once, by onnx_harness.h
// only.
#ifndef SHIM_MESH_HARNESS_H
#define SHIM_MESH_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "CFaceDetect.h"

static CFaceDetect_FaceMesh *face_mesh;

/// Opens the face mesh on `runtime` when its two models are there
/// (models/face-mesh.onnx and models/face-mesh-iris.onnx:
/// scripts/fetch-face-mesh-model), after the ones it must refuse: `other`
/// (another network's) as either, and a missing file.
static void mesh_start(CFaceDetect_OnnxRuntime *runtime, const char *other) {
    const char *model = "models/face-mesh.onnx", *iris = "models/face-mesh-iris.onnx";
    FILE *probe = fopen(model, "rb"), *probe_iris = fopen(iris, "rb");
    if (probe) fclose(probe);
    if (probe_iris) fclose(probe_iris);
    if (!probe || !probe_iris) {
        fprintf(stderr, "shim harness: no %s or %s; the face mesh left out\n", model, iris);
        return;
    }
    CFaceDetect_OnnxOptions options = {1, 99, 0, 0};
    CFaceDetect_FaceMesh *wrong = NULL;
    char *message = NULL;
    must_fail("another network as the face mesh", CFaceDetect_FaceMeshNew(runtime, other, iris, &options, &wrong, &message),
              message);
    message = NULL;
    must_fail("another network as the iris network",
              CFaceDetect_FaceMeshNew(runtime, model, other, &options, &wrong, &message), message);
    message = NULL;
    must_fail("the face mesh as the iris network",
              CFaceDetect_FaceMeshNew(runtime, model, model, &options, &wrong, &message), message);
    message = NULL;
    must_fail("no iris file", CFaceDetect_FaceMeshNew(runtime, model, "/nonexistent", &options, &wrong, &message),
              message);
    message = NULL;
    if (CFaceDetect_FaceMeshNew(runtime, model, iris, &options, &face_mesh, &message) != CFaceDetect_OK) {
        fprintf(stderr, "face mesh: %s\n", message ? message : "?");
        exit(2);
    }
}

static void mesh_run(const uint8_t *gray, int width, int height, size_t stride, const double chip[6]) {
    static float points[3 * CFaceDetect_FaceMeshPoints], eyes[4 * CFaceDetect_EyeContourPoints];
    float presence = 0;
    char *message = NULL;
    if (CFaceDetect_FaceMeshRun(face_mesh, gray, width, height, stride, chip, points, &presence, eyes, &message) !=
        CFaceDetect_OK) {
        fprintf(stderr, "face mesh: %s\n", message ? message : "?");
        exit(2);
    }
}

/// The face mesh on `gray` (width x height, one byte a pixel).
static void mesh_once(const uint8_t *gray, int width, int height) {
    if (!face_mesh || width < 2 || height < 2) return;
    // Upright: the chip spans the image's shorter side.
    double k = (width < height ? width : height) / 192.0;
    const double upright[6] = {k, 0, 0, 0, k, 0};
    mesh_run(gray, width, height, (size_t)width, upright);
    // Turned 120 degrees about the centre, twice as large: past every edge.
    double c = cos(2.0944) * 2 * k, s = sin(2.0944) * 2 * k;
    const double turned[6] = {c, -s, width / 2.0 - 96 * (c - s), s, c, height / 2.0 - 96 * (s + c)};
    mesh_run(gray, width, height, (size_t)width, turned);
    // The left half of each row only, read through the full rows' stride.
    mesh_run(gray, width / 2, height, (size_t)width, upright);
    // The face network alone (no eye contours asked for: no iris passes).
    {
        float alone[3 * CFaceDetect_FaceMeshPoints], presence = 0;
        char *message = NULL;
        if (CFaceDetect_FaceMeshRun(face_mesh, gray, width, height, (size_t)width, upright, alone, &presence, NULL,
                                    &message) != CFaceDetect_OK) {
            fprintf(stderr, "face mesh without the eyes: %s\n", message ? message : "?");
            exit(2);
        }
    }
    // A chip that is not a number is refused.
    const double broken[6] = {NAN, 0, 0, 0, 1, 0};
    float points[3 * CFaceDetect_FaceMeshPoints], eyes[4 * CFaceDetect_EyeContourPoints], presence = 0;
    char *message = NULL;
    must_fail("a chip that is not a number",
              CFaceDetect_FaceMeshRun(face_mesh, gray, width, height, (size_t)width, broken, points, &presence, eyes,
                                      &message),
              message);
}

#endif
