// CVipsShim_WarpEncode: an aligned face crop (see include/CVipsShim.h).
//
// The crop is drawn from the part of the image it covers:
//  1. that part (the crop's corners mapped back, plus the filters' reach) is
//     cut out, and where it lies past the image's edge, filled as `pad` says
//     (vips_embed: edge pixels repeated, black, or mirrored);
//  2. converted to 8-bit sRGB and, when the crop shrinks the image, resized
//     with Lanczos to the crop's scale (one good resample instead of a
//     bicubic warp that skips pixels and aliases), then held in memory (it
//     is the size of the crop, give or take the turned corners);
//  3. with `blur_padding`, the mirrored part is blurred and faded to the
//     median colour, as the FFHQ recipe does;
//  4. every crop pixel is looked up in it through the inverse matrix
//     (vips_mapim, bicubic).
#include <math.h>
#include <string.h>

#include "internal.h"

// Replaces *t by `next` when `status` is 0; returns whether it was.
// (`next` is read after the call that sets it has run.)
static int step(VipsImage **t, VipsImage **next, int status) {
    if (status != 0) return 0;
    g_object_unref(*t);
    *t = *next;
    return 1;
}

// Where the part of the image a crop needs lies, in image pixels, and how it
// is resampled.
typedef struct {
    int left, top, width, height;
    // Factor the part is resized by before the warp (1: not resized).
    double shrink;
    // Whether it reaches past each edge of the image (left, top, right, bottom).
    int outside[4];
} Part;

static void inverse(const double m[6], double inv[6]) {
    double det = m[0] * m[4] - m[1] * m[3];
    inv[0] = m[4] / det;
    inv[1] = -m[1] / det;
    inv[3] = -m[3] / det;
    inv[4] = m[0] / det;
    inv[2] = -(inv[0] * m[2] + inv[1] * m[5]);
    inv[5] = -(inv[3] * m[2] + inv[4] * m[5]);
}

static Part part_for(const double inv[6], double scale, int side, int width, int height) {
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int corner = 0; corner < 4; corner++) {
        double u = (corner & 1) ? side - 0.5 : -0.5;
        double v = (corner & 2) ? side - 0.5 : -0.5;
        double x = inv[0] * u + inv[1] * v + inv[2];
        double y = inv[3] * u + inv[4] * v + inv[5];
        x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
    }
    Part part;
    part.shrink = scale < 1 ? scale : 1;
    // Lanczos3 reads 3 pixels of the resized part each side, bicubic 2.
    double reach = 4 / part.shrink + 2;
    part.left = (int)floor(x0 - reach);
    part.top = (int)floor(y0 - reach);
    part.width = (int)ceil(x1 + reach) + 1 - part.left;
    part.height = (int)ceil(y1 + reach) + 1 - part.top;
    part.outside[0] = x0 < 0;
    part.outside[1] = y0 < 0;
    part.outside[2] = x1 > width - 1;
    part.outside[3] = y1 > height - 1;
    return part;
}

// The part, cut out and filled past the image's edge; 8-bit sRGB.
static VipsImage *cut_part(VipsImage *image, const Part *part, CVipsShim_Pad pad) {
    int width = vips_image_get_width(image), height = vips_image_get_height(image);
    int l = MAX(part->left, 0), t = MAX(part->top, 0);
    int r = MIN(part->left + part->width, width), b = MIN(part->top + part->height, height);
    VipsImage *cut = image;
    g_object_ref(cut);
    VipsImage *next = NULL;
    if (r > l && b > t && !step(&cut, &next, vips_extract_area(cut, &next, l, t, r - l, b - t, NULL))) goto failed;
    if (r <= l || b <= t) l = 0, t = 0;  // wholly outside: fill from the whole image
    if (l != part->left || t != part->top || vips_image_get_width(cut) != part->width ||
        vips_image_get_height(cut) != part->height) {
        VipsExtend extend = pad == CVipsShim_PadBlack   ? VIPS_EXTEND_BLACK
                            : pad == CVipsShim_PadReflect ? VIPS_EXTEND_MIRROR
                                                          : VIPS_EXTEND_COPY;
        if (!step(&cut, &next, vips_embed(cut, &next, l - part->left, t - part->top, part->width, part->height,
                                         "extend", extend, NULL))) goto failed;
    }
    return shim_to_8bit(cut, VIPS_INTERPRETATION_sRGB, 3);
failed:
    g_object_unref(cut);
    return NULL;
}

// FFHQ's padding: the part past the image's edge blurred (sigma 0.02 of the
// crop's side, in the part's pixels) and faded towards the median colour,
// by how far out it lies (0 at the edge, 1 at 0.3 of the crop's side out,
// or at the part's border when that is nearer). As in the recipe, the blur
// also reaches a third of that distance into the image. `edges` are where
// the image's first and last pixels lie in the part (left, top, right,
// bottom). Works in place on a memory image.
static int blur_padding(VipsImage *memory, const double edges[4], const int outside[4], double crop_side) {
    int w = vips_image_get_width(memory), h = vips_image_get_height(memory);
    VipsImage *blurred = NULL;
    if (vips_gaussblur(memory, &blurred, fmax(0.3, crop_side * 0.02), "min_ampl", 0.05, NULL) != 0) return 0;
    VipsImage *blurred_memory = vips_image_copy_memory(blurred);
    g_object_unref(blurred);
    if (!blurred_memory) return 0;
    uint8_t *pixels = (uint8_t *)vips_image_get_data(memory);
    const uint8_t *soft = (const uint8_t *)vips_image_get_data(blurred_memory);
    double reach[4];
    reach[0] = fmax(edges[0], 0.3 * crop_side);
    reach[1] = fmax(edges[1], 0.3 * crop_side);
    reach[2] = fmax(w - 1 - edges[2], 0.3 * crop_side);
    reach[3] = fmax(h - 1 - edges[3], 0.3 * crop_side);
    float *mask = g_new(float, (size_t)w * h);
    size_t histogram[3][256] = {{0}};
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            double m = -INFINITY;
            if (outside[0]) m = fmax(m, (edges[0] - x) / reach[0]);
            if (outside[1]) m = fmax(m, (edges[1] - y) / reach[1]);
            if (outside[2]) m = fmax(m, (x - edges[2]) / reach[2]);
            if (outside[3]) m = fmax(m, (y - edges[3]) / reach[3]);
            size_t at = (size_t)y * w + x;
            mask[at] = (float)m;
            double k = fmin(fmax(m * 3 + 1, 0), 1);
            for (int band = 0; band < 3; band++) {
                double v = pixels[at * 3 + band] + (soft[at * 3 + band] - pixels[at * 3 + band]) * k;
                pixels[at * 3 + band] = (uint8_t)lround(v);
                histogram[band][pixels[at * 3 + band]]++;
            }
        }
    }
    g_object_unref(blurred_memory);
    double median[3];
    for (int band = 0; band < 3; band++) {
        size_t seen = 0;
        int value = 0;
        while (value < 255 && (seen += histogram[band][value]) * 2 < (size_t)w * h) value++;
        median[band] = value;
    }
    for (size_t at = 0; at < (size_t)w * h; at++) {
        double k = fmin(fmax(mask[at], 0), 1);
        for (int band = 0; band < 3; band++) {
            double v = pixels[at * 3 + band];
            pixels[at * 3 + band] = (uint8_t)lround(v + (median[band] - v) * k);
        }
    }
    g_free(mask);
    return 1;
}

// The crop: each crop pixel looked up in `part` (memory, 8-bit sRGB) at
// `map` (crop -> part pixels), bicubic.
static VipsImage *resample(VipsImage *part, const double map[6], int side) {
    size_t count = (size_t)side * side * 2;
    float *index = g_new(float, count);
    for (int v = 0; v < side; v++) {
        for (int u = 0; u < side; u++) {
            float *at = index + ((size_t)v * side + u) * 2;
            at[0] = (float)(map[0] * u + map[1] * v + map[2]);
            at[1] = (float)(map[3] * u + map[4] * v + map[5]);
        }
    }
    VipsImage *coordinates = vips_image_new_from_memory_copy(index, count * sizeof(float), side, side, 2,
                                                             VIPS_FORMAT_FLOAT);
    g_free(index);
    if (!coordinates) return NULL;
    VipsInterpolate *bicubic = vips_interpolate_new("bicubic");
    VipsImage *out = NULL;
    int status = vips_mapim(part, &out, coordinates, "interpolate", bicubic, "extend", VIPS_EXTEND_COPY, NULL);
    g_object_unref(bicubic);
    g_object_unref(coordinates);
    return status == 0 ? out : NULL;
}

// The warped crop as a lazy image over its part (held in memory), or
// NULL with `*status` and `*message` set.
static VipsImage *warped(CVipsShim_Image *handle, const CVipsShim_WarpSpec *spec, int *status, char **message) {
    *status = CVipsShim_BadArgument;
    if (!handle || !handle->image || !spec || spec->output_side < 1 || spec->output_side > 16384) {
        shim_fail(CVipsShim_BadArgument, message, "bad arguments to the warp");
        return NULL;
    }
    const double *m = spec->matrix;
    double det = m[0] * m[4] - m[1] * m[3];
    for (int i = 0; i < 6; i++) {
        if (!isfinite(m[i])) return shim_fail(CVipsShim_BadArgument, message, "matrix is not finite"), NULL;
    }
    if (!(fabs(det) > 1e-12)) return shim_fail(CVipsShim_BadArgument, message, "matrix is singular"), NULL;
    double inv[6];
    inverse(m, inv);
    int side = spec->output_side;
    int width = vips_image_get_width(handle->image), height = vips_image_get_height(handle->image);
    Part part = part_for(inv, sqrt(fabs(det)), side, width, height);
    if (part.width > 65536 || part.height > 65536 || (double)part.width * part.height * part.shrink * part.shrink > 4e8) {
        return shim_fail(CVipsShim_BadArgument, message, "the crop covers too much of the image"), NULL;
    }
    *status = CVipsShim_DecodeFailed;
    VipsImage *t = cut_part(handle->image, &part, spec->pad);
    if (!t) return shim_fail(CVipsShim_DecodeFailed, message, "could not cut the crop's part of the image"), NULL;
    VipsImage *next = NULL;
    if (part.shrink < 1 && !step(&t, &next, vips_resize(t, &next, part.shrink, "kernel", VIPS_KERNEL_LANCZOS3, NULL))) {
        g_object_unref(t);
        return shim_fail(CVipsShim_DecodeFailed, message, "could not resize the crop's part"), NULL;
    }
    VipsImage *memory = vips_image_copy_memory(t);
    g_object_unref(t);
    if (!memory) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode the crop's part"), NULL;
    t = memory;
    // Image pixel p lies at (p - part origin + 0.5) * shrink - 0.5 in the
    // resized part (libvips resizes centre to centre).
    double k = part.shrink;
    double ox = (0.5 - part.left) * k - 0.5, oy = (0.5 - part.top) * k - 0.5;
    int outside = part.outside[0] || part.outside[1] || part.outside[2] || part.outside[3];
    if (spec->blur_padding && spec->pad == CVipsShim_PadReflect && outside) {
        double edges[4] = {ox, oy, (width - 1) * k + ox, (height - 1) * k + oy};
        // The crop's side in the part's pixels.
        double crop_side = side / sqrt(fabs(det)) * k;
        if (!blur_padding(t, edges, part.outside, crop_side)) {
            g_object_unref(t);
            return shim_fail(CVipsShim_DecodeFailed, message, "could not blur the padding"), NULL;
        }
    }
    double map[6] = {inv[0] * k, inv[1] * k, inv[2] * k + ox, inv[3] * k, inv[4] * k, inv[5] * k + oy};
    VipsImage *crop = resample(t, map, side);
    g_object_unref(t);
    if (!crop) return shim_fail(CVipsShim_DecodeFailed, message, "could not warp the crop"), NULL;
    *status = CVipsShim_OK;
    return crop;
}

int CVipsShim_WarpEncode(CVipsShim_Image *handle, const CVipsShim_WarpSpec *spec, void **bytes, size_t *length,
                         char **message) {
    if (!bytes || !length) return shim_fail(CVipsShim_BadArgument, message, "bad arguments to WarpEncode");
    *bytes = NULL;
    *length = 0;
    int status = 0;
    VipsImage *crop = warped(handle, spec, &status, message);
    if (!crop) return status;
    return shim_encode(crop, spec->format, spec->quality, bytes, length, message);
}

int CVipsShim_WarpRGB(CVipsShim_Image *handle, const CVipsShim_WarpSpec *spec, uint8_t *rgb, size_t capacity,
                      char **message) {
    if (!rgb || !spec || capacity < (size_t)spec->output_side * spec->output_side * 3) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to WarpRGB");
    }
    int status = 0;
    VipsImage *crop = warped(handle, spec, &status, message);
    if (!crop) return status;
    size_t size = 0;
    void *memory = vips_image_write_to_memory(crop, &size);
    g_object_unref(crop);
    if (!memory || size != (size_t)spec->output_side * spec->output_side * 3) {
        g_free(memory);
        return shim_fail(CVipsShim_DecodeFailed, message, "could not warp the crop");
    }
    memcpy(rgb, memory, size);
    g_free(memory);
    return CVipsShim_OK;
}
