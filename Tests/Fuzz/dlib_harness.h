// dlib's part of the shim for shim_harness.c: the 5-point predictor
// (landmarks.cpp) for the quality record's pose, the face descriptor
// (embed.cpp, on ONNX Runtime) on each photo's middle and on detector
// points, and the descriptors' nearest neighbours (neighbours.cpp, exact and
// HNSW). The models load with SHIM_HARNESS_MAIN and SHIM_DLIB_MODELS (a
// folder: scripts/fetch-dlib-models); without them embed_once does nothing.
// Included once, by shim_harness.c only, after onnx_harness.h.
#ifndef SHIM_DLIB_HARNESS_H
#define SHIM_DLIB_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "CFaceDetect.h"
#include "CVipsShim.h"

static CFaceDetect_Embedder *embedder;
/// dlib's 5-point predictor alone, for the quality record's pose (with SHIM_DLIB_MODELS).
static CFaceDetect_Landmarker *landmarker;
/// Descriptors of the files seen so far (at most 64), for the neighbours.
static float descriptors[64][CFaceDetect_EmbeddingSize];
static size_t described;

/// One descriptor into the ring; a failure is a status, freed.
static void embed_into_ring(CFaceDetect_Landmarker *points_from, const uint8_t *rgb, const float *five) {
    char *message = NULL;
    if (CFaceDetect_Embed(embedder, points_from, rgb, 300, 300, 900, 75, 75, 150, 150, five,
                          descriptors[described % 64], &message) == CFaceDetect_OK) {
        described++;
    } else {
        CFaceDetect_Free(message);
    }
}

/// --people: the middle half of the decode as the face, from 300 px pixels;
/// then the detector's five points instead (FACECROP_CHIP_LANDMARKS=detector):
/// a face's, one reaching past the region's edge (these two run the network,
/// so on the first image only), all in one place (no chip: an error) and one
/// not a number (an error).
static void embed_once(CVipsShim_Image *image, int width, int height) {
    if (!embedder) return;
    double e = 300.0 / (width > height ? width : height);
    CVipsShim_WarpSpec region = {{e, 0, 0, 0, e, 0}, 300, CVipsShim_PadEdge, 0, CVipsShim_PNG, 90};
    uint8_t *rgb = malloc(300 * 300 * 3);
    char *message = NULL;
    if (CVipsShim_WarpRGB(image, &region, rgb, 300 * 300 * 3, &message) == CVipsShim_OK) {
        embed_into_ring(landmarker, rgb, NULL);
        static int pointsEmbedded = 0;
        const float five[4][10] = {
            {120, 130, 180, 130, 150, 165, 125, 195, 175, 195},
            {-40, 250, 330, 260, 310, 320, 200, 340, 290, 360},
            {150, 150, 150, 150, 150, 150, 150, 150, 150, 150},
            {120, 130, 180, 130, NAN, 165, 125, 195, 175, 195},
        };
        for (int p = pointsEmbedded++ ? 2 : 0; p < 4; p++) embed_into_ring(NULL, rgb, five[p]);
    } else {
        CVipsShim_Free(message);
    }
    free(rgb);
}

#ifdef SHIM_HARNESS_MAIN
/// Opens the predictor and the descriptor from `models`, after the ones
/// they must refuse: the descriptor as the predictor, the predictor, no
/// file and another network as the descriptor.
static void dlib_start(const char *models) {
    char descriptor[4096], landmarks[4096];
    snprintf(descriptor, sizeof descriptor, "%s/dlib-descriptor.onnx", models);
    snprintf(landmarks, sizeof landmarks, "%s/shape_predictor_5_face_landmarks.dat", models);
    char *message = NULL;
    if (CFaceDetect_LandmarkerNew(landmarks, &landmarker, &message) != CFaceDetect_OK) {
        fprintf(stderr, "dlib: %s\n", message ? message : "?");
        exit(2);
    }
    must_fail("the descriptor as the predictor",
              CFaceDetect_LandmarkerNew(descriptor, &(CFaceDetect_Landmarker *){NULL}, &message), message);
    if (!onnx_runtime) {
        fprintf(stderr, "shim harness: no ONNX Runtime; the face descriptor left out\n");
        return;
    }
    CFaceDetect_OnnxOptions options = {1, 99, 0, 0};
    if (CFaceDetect_EmbedderNew(onnx_runtime, descriptor, &options, &embedder, &message) != CFaceDetect_OK) {
        fprintf(stderr, "descriptor: %s\n", message ? message : "?");
        exit(2);
    }
    CFaceDetect_Embedder *wrong = NULL;
    must_fail("the predictor as the descriptor",
              CFaceDetect_EmbedderNew(onnx_runtime, landmarks, &options, &wrong, &message), message);
    must_fail("no descriptor file", CFaceDetect_EmbedderNew(onnx_runtime, "/nonexistent", &options, &wrong, &message),
              message);
    FILE *other = fopen("models/yunet-any.onnx", "rb");
    if (other) {
        fclose(other);
        must_fail("YuNet as the descriptor",
                  CFaceDetect_EmbedderNew(onnx_runtime, "models/yunet-any.onnx", &options, &wrong, &message), message);
    }
}

static void neighbours_once(size_t count, size_t exact_limit) {
    int k = 5;
    int32_t *ids = malloc(count * k * sizeof(int32_t));
    float *distances = malloc(count * k * sizeof(float));
    char *message = NULL;
    if (CFaceDetect_Neighbours(&descriptors[0][0], count, CFaceDetect_EmbeddingSize, k, exact_limit, 0, 0, ids, distances,
                               &message) != CFaceDetect_OK) {
        fprintf(stderr, "neighbours: %s\n", message ? message : "?");
        CFaceDetect_Free(message);
    }
    free(ids);
    free(distances);
}

/// The neighbours of the descriptors made, both ways; then closes both models.
static void dlib_finish(void) {
    if (embedder) {
        size_t count = described < 64 ? described : 64;
        neighbours_once(count, 1000);
        neighbours_once(count, 0);
        CFaceDetect_EmbedderClose(embedder);
        printf("shim harness: %zu faces embedded\n", described);
    }
    CFaceDetect_LandmarkerClose(landmarker);
}
#endif
#endif
