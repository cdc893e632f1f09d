// Drives the C shims (CVipsShim, CFaceDetect) the way a facecrop worker does,
// over arbitrary bytes: header, shrink-on-load decode, grayscale, cascade
// and CenterFace detection (through cv::dnn, and with SHIM_HARNESS_MAIN
// through ONNX Runtime too when its library is there, with YuNet, the face
// mesh and size-free models on it: onnx_harness.h), one crop encoded, turned
// crops warped (warp.c: encoded, and as pixels for the arcface remeasure),
// and with dlib's models (SHIM_DLIB_MODELS, a folder: dlib_harness.h) each
// photo's middle embedded as a face, and the descriptors' nearest neighbours
// found both ways (exact, HNSW), and the bytes read as XMP face regions
// (xmp.cpp, Exiv2). Built two ways by scripts/fuzz and
// scripts/sanitize:
//   - with libFuzzer (-fsanitize=fuzzer,address): LLVMFuzzerTestOneInput;
//   - with AddressSanitizer/LeakSanitizer and SHIM_HARNESS_MAIN: runs the
//     files named on the command line once each.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "CFaceDetect.h"
#include "CVipsShim.h"

static CFaceDetect_Cascade *cascade;
static CFaceDetect_Bodies *bodies;
// CenterFace, when its model is there ($SHIM_CENTERFACE, else
// models/centerface.onnx: scripts/fetch-centerface), keeping two networks so
// that the fixtures' mixed canvas sizes also drop and remake them.
static CFaceDetect_CenterFace *centerface;
#ifdef SHIM_HARNESS_MAIN
#include "onnx_harness.h"
#endif
#include "dlib_harness.h"

static void start(void) {
    if (cascade) return;
    char *message = NULL;
    if (CVipsShim_Init("shim_harness", 1, 0, &message) != CVipsShim_OK) {
        fprintf(stderr, "vips: %s\n", message ? message : "?");
        exit(2);
    }
    CFaceDetect_SetNumThreads(1);
    const char *path = getenv("SHIM_CASCADE");
    if (!path) path = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml";
    if (CFaceDetect_CascadeNew(path, &cascade, &message) != CFaceDetect_OK) {
        fprintf(stderr, "cascade: %s\n", message ? message : "?");
        exit(2);
    }
    if (CFaceDetect_BodiesNew(&bodies, &message) != CFaceDetect_OK) {
        fprintf(stderr, "bodies: %s\n", message ? message : "?");
        exit(2);
    }
    const char *model = getenv("SHIM_CENTERFACE");
    if (!model) model = "models/centerface.onnx";
    FILE *probe = fopen(model, "rb");
    if (probe) {
        fclose(probe);
        if (CFaceDetect_CenterFaceNew(model, 2L, &centerface, &message) != CFaceDetect_OK) {
            fprintf(stderr, "centerface: %s\n", message ? message : "?");
            exit(2);
        }
    }
#ifdef SHIM_HARNESS_MAIN
    onnx_start();
#endif
}

// Cuts and encodes one crop; a failure is fine, a leak or a bad access not.
/// The quality record's shim calls on one photo's grayscale pixels: the
/// exposure of its middle and of a box past its edge, dlib's five points on
/// the middle (when the predictor is loaded), and the pose from those points
/// and from made-up detector points, degenerate ones included.
static void quality_once(const uint8_t *gray, int width, int height) {
    double mean, dark, bright, blockiness, yaw, pitch, roll;
    (void)CFaceDetect_Exposure(gray, width, height, (size_t)width, width / 4, height / 4, width / 2, height / 2, &mean,
                               &dark, &bright, &blockiness);
    (void)CFaceDetect_Exposure(gray, width, height, (size_t)width, -width, -height, 3 * width, 3 * height, &mean, &dark,
                               &bright, &blockiness);
    char *message = NULL;
    float points[10] = {0};
    if (landmarker && width > 1 && height > 1 &&
        CFaceDetect_LandmarkerFind(landmarker, gray, width, height, (size_t)width, width / 4, height / 4, width / 2,
                                   height / 2, points, &message) == CFaceDetect_OK) {
        if (CFaceDetect_Pose(points, 1, width, height, &yaw, &pitch, &roll, &message) != CFaceDetect_OK) {
            CFaceDetect_Free(message);
            message = NULL;
        }
    }
    CFaceDetect_Free(message);
    message = NULL;
    const float five[10] = {30, 40, 70, 40, 50, 60, 35, 80, 65, 80};
    if (CFaceDetect_Pose(five, 0, 100, 100, &yaw, &pitch, &roll, &message) != CFaceDetect_OK) CFaceDetect_Free(message);
    message = NULL;
    const float same[10] = {0};
    if (CFaceDetect_Pose(same, 0, 100, 100, &yaw, &pitch, &roll, &message) != CFaceDetect_OK) CFaceDetect_Free(message);
}

static void crop_once(CVipsShim_Image *image, CVipsShim_CropSpec spec) {
    char *message = NULL;
    void *bytes = NULL;
    size_t length = 0;
    if (CVipsShim_CropEncode(image, &spec, &bytes, &length, &message) != CVipsShim_OK) CVipsShim_Free(message);
    CVipsShim_Free(bytes);
}

// Warps one turned crop (`--align arcface|ffhq`): encoded, then as pixels.
// `matrix` maps image pixels to crop pixels.
static void warp_once(CVipsShim_Image *image, const double matrix[6], int side, CVipsShim_Pad pad, int blur) {
    CVipsShim_WarpSpec spec = {{matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5]}, side, pad, blur,
                               CVipsShim_WebP, 80};
    char *message = NULL;
    void *bytes = NULL;
    size_t length = 0;
    if (CVipsShim_WarpEncode(image, &spec, &bytes, &length, &message) != CVipsShim_OK) CVipsShim_Free(message);
    CVipsShim_Free(bytes);
    message = NULL;
    uint8_t *rgb = malloc((size_t)side * side * 3);
    if (CVipsShim_WarpRGB(image, &spec, rgb, (size_t)side * side * 3, &message) != CVipsShim_OK) CVipsShim_Free(message);
    free(rgb);
}

/// The bytes as a video frame (16 pixels wide, packed RGB), cut and turned
/// past its edges; and the frame call refusing a zero size.
static void frame_once(const uint8_t *data, size_t size) {
    char *message = NULL;
    CVipsShim_Image *frame = NULL;
    if (CVipsShim_ImageFromRGB(data, 0, 1, &frame, &message) != CVipsShim_OK) CVipsShim_Free(message);
    message = NULL;
    int height = (int)(size / 48 > 64 ? 64 : size / 48);
    if (height < 1) return;
    if (CVipsShim_ImageFromRGB(data, 16, height, &frame, &message) != CVipsShim_OK) {
        CVipsShim_Free(message);
        return;
    }
    crop_once(frame, (CVipsShim_CropSpec){-4, -4, 24, CVipsShim_PadEdge, 16, CVipsShim_JPEG, 80});
    const double turned[6] = {0.7, -0.7, 4, 0.7, 0.7, -4};
    warp_once(frame, turned, 16, CVipsShim_PadReflect, 1);
    CVipsShim_ImageFree(frame);
}

// The bytes as an XMP packet (a sidecar), every region read, and a sidecar
// written from them: parse errors are statuses, nothing leaks.
static void xmp_once(const uint8_t *data, size_t size) {
    char *message = NULL;
    CFaceDetect_XmpRegions *regions = NULL;
    if (CFaceDetect_XmpRegionsRead((const char *)data, size, &regions, &message) != CFaceDetect_OK) {
        CFaceDetect_Free(message);
        return;
    }
    size_t count = CFaceDetect_XmpRegionCount(regions);
    CFaceDetect_XmpFace faces[8];
    size_t kept = 0;
    for (size_t i = 0; i < count && kept < 8; i++) {
        const CFaceDetect_XmpRegion *region = CFaceDetect_XmpRegionAt(regions, i);
        faces[kept++] = (CFaceDetect_XmpFace){region->name ? region->name : "", 0.5, 0.5, 0.1, 0.1};
    }
    char *packet = NULL;
    if (CFaceDetect_XmpRegionsWrite(faces, kept, 640, 480, &packet, &message) == CFaceDetect_OK) {
        CFaceDetect_Free(packet);
    } else {
        CFaceDetect_Free(message);
    }
    CFaceDetect_XmpRegionsFree(regions);
}

/// CenterFace on one photo's RGB pixels: the whole photo, a crowd tile
/// (its middle enlarged twice) and the photo at twice its size (nearest),
/// so that a long side over 400 px takes the large-face pass at 320 px too.
static void centerface_once(CFaceDetect_CenterFace *cf, const uint8_t *rgb, int width, int height) {
    char *message = NULL;
    CFaceDetect_YuNetFace *faces = NULL;
    size_t count = 0;
    if (CFaceDetect_CenterFaceDetect(cf, rgb, width, height, (size_t)width * 3, 0.5f, 0.3f, &faces, &count,
                                     &message) != CFaceDetect_OK) {
        CFaceDetect_Free(message);
        message = NULL;
    }
    CFaceDetect_Free(faces);
    faces = NULL;
    if (width >= 4 && height >= 4 &&
        CFaceDetect_CenterFaceDetectRegion(cf, rgb, width, height, (size_t)width * 3, width / 4, height / 4, width / 2,
                                           height / 2, 2.0, 0.5f, &faces, &count, &message) != CFaceDetect_OK) {
        CFaceDetect_Free(message);
        message = NULL;
    }
    CFaceDetect_Free(faces);
    faces = NULL;
    uint8_t *twice = malloc((size_t)width * height * 12);
    if (twice) {
        for (int y = 0; y < 2 * height; y++)
            for (int x = 0; x < 2 * width; x++)
                for (int c = 0; c < 3; c++)
                    twice[((size_t)y * 2 * width + x) * 3 + c] = rgb[((size_t)(y / 2) * width + x / 2) * 3 + c];
        if (CFaceDetect_CenterFaceDetect(cf, twice, 2 * width, 2 * height, (size_t)width * 6, 0.5f, 0.3f, &faces,
                                         &count, &message) != CFaceDetect_OK) {
            CFaceDetect_Free(message);
        }
        CFaceDetect_Free(faces);
        free(twice);
    }
}

/// The grey decode's shim calls: both cascades, the sharpness and softness
/// measures, the quality record, the face mesh, crops and turned crops past
/// the edges, and the face descriptor.
static void gray_once(CVipsShim_Image *image, const uint8_t *gray, int width, int height) {
    char *message = NULL;
    CFaceDetect_Params params = {1.2, 3, 20, 0, 1};
    CFaceDetect_Box *boxes = NULL;
    size_t count = 0;
    if (CFaceDetect_CascadeDetect(cascade, gray, width, height, (size_t)width, &params, &boxes, &count, &message) !=
        CFaceDetect_OK) {
        CFaceDetect_Free(message);
        message = NULL;
    }
    CFaceDetect_Free(boxes);
    boxes = NULL;
    if (CFaceDetect_BodiesDetect(bodies, gray, width, height, (size_t)width, 0.0, 1, &boxes, &count, &message) !=
        CFaceDetect_OK) {
        CFaceDetect_Free(message);
    }
    CFaceDetect_Free(boxes);
    (void)CFaceDetect_Sharpness(gray, width, height, (size_t)width, 0, 0, width, height);
    (void)CFaceDetect_Softness(gray, width, height, (size_t)width, 0, 0, width, height);
    (void)CFaceDetect_Softness(gray, width, height, (size_t)width, width / 2, height / 2, width, height);
    (void)CFaceDetect_BlockSoftness(gray, width, height, (size_t)width, 0, 0, width, height, 8.0 * (width % 5 + 1) / 5);
    (void)CFaceDetect_BlockSoftness(gray, width, height, (size_t)width, width / 2, height / 2, width, height, 0.5);
    quality_once(gray, width, height);
#ifdef SHIM_HARNESS_MAIN
    mesh_once(gray, width, height);
#endif
    // One crop that reaches past the corner, padded.
    crop_once(image, (CVipsShim_CropSpec){-width / 4, -height / 4, width > 0 ? width : 1, CVipsShim_PadEdge, 32,
                                          CVipsShim_JPEG, 80});
    // Turned 30 degrees, shrinking, centred on the top-left corner: past
    // two edges, mirrored and blurred as FFHQ pads (and edge-repeated).
    double k = 48.0 / (width > height ? width : height), c = cos(0.5236) * k, s = sin(0.5236) * k;
    const double turned[6] = {c, s, 24, -s, c, 24};
    warp_once(image, turned, 48, CVipsShim_PadReflect, 1);
    warp_once(image, turned, 48, CVipsShim_PadEdge, 0);
    // Enlarging, wholly past the image's edge: filled from it.
    const double outside[6] = {2, 0, -2.0 * width - 40, 0, 2, 8};
    warp_once(image, outside, 16, CVipsShim_PadBlack, 0);
    embed_once(image, width, height);
}

/// The networks on the decode's RGB pixels: CenterFace through cv::dnn and
/// through ONNX Runtime, and YuNet.
static void networks_once(CVipsShim_Image *image) {
    CFaceDetect_CenterFace *detectors[2] = {centerface, NULL};
    int networks = centerface != NULL;
#ifdef SHIM_HARNESS_MAIN
    detectors[1] = centerface_onnx;
    networks = networks || centerface_onnx || yunet_onnx;
#endif
    if (!networks) return;
    uint8_t *rgb = NULL;
    int width = 0, height = 0;
    char *message = NULL;
    if (CVipsShim_ImageRGB(image, &rgb, &width, &height, &message) != CVipsShim_OK) {
        CVipsShim_Free(message);
        return;
    }
    for (int d = 0; d < 2; d++) {
        if (detectors[d]) centerface_once(detectors[d], rgb, width, height);
    }
#ifdef SHIM_HARNESS_MAIN
    yunet_once(rgb, width, height);
#endif
    CVipsShim_Free(rgb);
}

/// The crop decodes: the whole photo (HEIF/AVIF through libheif's planes),
/// and the part of it a crop near the bottom right covers, cropped and
/// turned past its bottom-right edge.
static void crop_decodes_once(const uint8_t *data, size_t size, const CVipsShim_Header *header) {
    char *message = NULL;
    CVipsShim_Image *image = NULL;
    if (CVipsShim_LoadScaled(data, size, header, 1, header->width, header->height, &image, &message) == CVipsShim_OK) {
        CVipsShim_ImageFree(image);
        image = NULL;
    } else {
        CVipsShim_Free(message);
        message = NULL;
    }
    CVipsShim_Region where;
    if (CVipsShim_LoadRegion(data, size, header, 1, header->width / 2, header->height / 2, header->width / 2 + 1,
                             header->height / 2 + 1, &image, &where, &message) == CVipsShim_OK) {
        crop_once(image, (CVipsShim_CropSpec){-4, -4, 24, CVipsShim_PadBlack, 16, CVipsShim_PNG, 80});
        const double turned[6] = {0.7, -0.7, 4, 0.7, 0.7, -4};
        warp_once(image, turned, 24, CVipsShim_PadReflect, 1);
        CVipsShim_ImageFree(image);
    } else {
        CVipsShim_Free(message);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    start();
    frame_once(data, size);
    xmp_once(data, size);
    char *message = NULL;
    CVipsShim_Header header;
    if (CVipsShim_ReadHeader(data, size, &header, &message) != CVipsShim_OK) {
        CVipsShim_Free(message);
        return 0;
    }
    CVipsShim_Image *image = NULL;
    // The same pixel limit facecrop applies, scaled down to keep runs fast.
    if ((int64_t)header.stored_width * header.stored_height > 4000000) return 0;
    if (CVipsShim_LoadScaled(data, size, &header, 0.75, 256, 256, &image, &message) != CVipsShim_OK) {
        CVipsShim_Free(message);
        return 0;
    }
    if (CVipsShim_ImageMaterialize(image, &message) != CVipsShim_OK) {
        CVipsShim_Free(message);
        CVipsShim_ImageFree(image);
        return 0;
    }
    uint8_t *gray = NULL;
    int width = 0, height = 0;
    if (CVipsShim_ImageGray(image, &gray, &width, &height, &message) == CVipsShim_OK) {
        gray_once(image, gray, width, height);
        CVipsShim_Free(gray);
    } else {
        CVipsShim_Free(message);
    }
    networks_once(image);
    CVipsShim_ImageFree(image);
    crop_decodes_once(data, size, &header);
    return 0;
}

#ifdef SHIM_HARNESS_MAIN
/// One file through the fuzzer's entry, then its header read from the file
/// with the embedded XMP handed over and read.
static void file_once(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    size_t got = size > 0 ? fread(data, 1, (size_t)size, file) : 0;
    fclose(file);
    LLVMFuzzerTestOneInput(data, got);
    free(data);
    CVipsShim_Header header;
    char *xmp = NULL, *message = NULL;
    size_t xmp_length = 0;
    if (CVipsShim_ReadHeaderFileXMP(path, &header, &xmp, &xmp_length, &message) == CVipsShim_OK) {
        if (xmp) xmp_once((const uint8_t *)xmp, xmp_length);
        CVipsShim_Free(xmp);
    } else {
        CVipsShim_Free(message);
    }
}

int main(int argc, char **argv) {
    start();
    const char *models = getenv("SHIM_DLIB_MODELS");
    if (models) dlib_start(models);
    for (int i = 1; i < argc; i++) file_once(argv[i]);
    dlib_finish();
    CFaceDetect_CascadeClose(cascade);
    CFaceDetect_BodiesClose(bodies);
    CFaceDetect_CenterFaceClose(centerface);
    onnx_finish();
    printf("shim harness: %d files, no sanitizer errors\n", argc - 1);
    return 0;
}
#endif
