// One crop: a square cut from a decode (padded where it reaches outside,
// optionally turned about its centre), resized to the output side and
// encoded as JPEG, PNG or WebP in memory.
//
// Every image cut from here is already in memory (a materialized or region
// decode, or HEIF planes), so no step reads the photo file again: any
// failure here is one of making the output, CVipsShim_EncodeFailed.
#include <math.h>
#include <string.h>

#include "internal.h"

// Puts `t` on a larger canvas when the `side` square at (*left, *top)
// reaches outside it, the margin filled from the edge pixels or black, and
// moves the square onto the canvas. Takes `t`; NULL on failure.
static VipsImage *pad_outside(VipsImage *t, int *left, int *top, int side, CVipsShim_Pad pad) {
    int width = vips_image_get_width(t);
    int height = vips_image_get_height(t);
    if (*left >= 0 && *top >= 0 && *left + side <= width && *top + side <= height) return t;
    int ox = *left < 0 ? -*left : 0;
    int oy = *top < 0 ? -*top : 0;
    int cw = MAX(width + ox, *left + ox + side);
    int ch = MAX(height + oy, *top + oy + side);
    VipsExtend extend = pad == CVipsShim_PadBlack     ? VIPS_EXTEND_BLACK
                        : pad == CVipsShim_PadReflect ? VIPS_EXTEND_MIRROR
                                                      : VIPS_EXTEND_COPY;
    VipsImage *next = NULL;
    int failed = vips_embed(t, &next, ox, oy, cw, ch, "extend", extend, NULL);
    shim_unref(t);
    if (failed) return NULL;
    *left += ox;
    *top += oy;
    return next;
}

// Turns `t` by `angle` degrees anticlockwise about its centre and keeps the
// centre `side` x `side`. Takes `t`; NULL on failure.
static VipsImage *turn(VipsImage *t, double angle, int side) {
    VipsImage *next = NULL;
    // vips_rotate turns clockwise for positive angles.
    int failed = vips_rotate(t, &next, -angle, NULL);
    shim_unref(t);
    if (failed) return NULL;
    t = next;
    int rw = vips_image_get_width(t);
    int rh = vips_image_get_height(t);
    failed = vips_extract_area(t, &next, (rw - side) / 2, (rh - side) / 2, side, side, NULL);
    shim_unref(t);
    return failed ? NULL : next;
}

// The spec's square of `t`, turned when it asks. Takes `t`; NULL on failure.
static VipsImage *cut_square(VipsImage *t, const CVipsShim_CropSpec *spec) {
    int left = spec->left;
    int top = spec->top;
    int side = spec->side;
    int turning = spec->angle != 0.0;
    if (turning) {
        // Cut a region large enough that the turned square has no empty corners.
        int big = (int)ceil(side * 1.4143) + 2;
        left += side / 2 - big / 2;
        top += side / 2 - big / 2;
        side = big;
    }
    t = pad_outside(t, &left, &top, side, spec->pad);
    if (!t) return NULL;
    VipsImage *next = NULL;
    int failed = vips_extract_area(t, &next, left, top, side, side, NULL);
    shim_unref(t);
    if (failed) return NULL;
    return turning ? turn(next, spec->angle, spec->side) : next;
}

// Resizes the `side` x `side` image `t` to exactly `output_side` square.
// Takes `t`; NULL on failure.
static VipsImage *resize_square(VipsImage *t, int side, int output_side) {
    VipsImage *next = NULL;
    if (side != output_side) {
        double scale = (double)output_side / (double)side;
        int failed = vips_resize(t, &next, scale, "vscale", scale, NULL);
        shim_unref(t);
        if (failed) return NULL;
        t = next;
    }
    // Rounding can leave the resized side one pixel off: cut or extend to size.
    if (vips_image_get_width(t) != output_side || vips_image_get_height(t) != output_side) {
        int failed = vips_embed(t, &next, 0, 0, output_side, output_side, "extend", VIPS_EXTEND_COPY, NULL);
        shim_unref(t);
        if (failed) return NULL;
        t = next;
    }
    return t;
}

// A copy of `t` (taking over its reference) without the photo's metadata:
// EXIF (with its GPS position), XMP, IPTC and the ICC profile. libvips
// 8.14's webpsave writes the EXIF and XMP blocks whatever "strip" says, so
// a WebP crop would carry where and when the photo was taken. NULL on
// failure (`t` released).
static VipsImage *without_metadata(VipsImage *t) {
    VipsImage *bare = NULL;
    int failed = vips_copy(t, &bare, NULL);
    shim_unref(t);
    if (failed) return NULL;
    gchar **fields = vips_image_get_fields(bare);
    for (gchar **field = fields; field && *field; field++) {
        if (g_str_has_prefix(*field, "exif-") || strcmp(*field, "xmp-data") == 0 ||
            strcmp(*field, "iptc-data") == 0 || strcmp(*field, VIPS_META_ICC_NAME) == 0) {
            vips_image_remove(bare, *field);
        }
    }
    g_strfreev(fields);
    return bare;
}

int shim_encode(VipsImage *t, CVipsShim_Format format, int quality, void **bytes, size_t *length, char **message) {
    quality = quality < 1 ? 1 : (quality > 100 ? 100 : quality);
    int status = 0;
    switch (format) {
    case CVipsShim_JPEG:
        status = vips_jpegsave_buffer(t, bytes, length, "Q", quality, "strip", TRUE,
                                      "optimize_coding", TRUE, NULL);
        break;
    case CVipsShim_PNG:
        status = vips_pngsave_buffer(t, bytes, length, "strip", TRUE, "compression", 6, NULL);
        break;
    case CVipsShim_WebP:
        if (!(t = without_metadata(t))) return shim_fail(CVipsShim_EncodeFailed, message, "could not encode crop");
        status = vips_webpsave_buffer(t, bytes, length, "Q", quality, "strip", TRUE, NULL);
        break;
    default:
        shim_unref(t);
        return shim_fail(CVipsShim_BadArgument, message, "unknown output format");
    }
    shim_unref(t);
    if (status != 0) {
        return shim_fail(CVipsShim_EncodeFailed, message, "could not encode crop");
    }
    return CVipsShim_OK;
}

int CVipsShim_CropEncode(CVipsShim_Image *handle, const CVipsShim_CropSpec *spec,
                         void **bytes, size_t *length, char **message) {
    if (!handle || !handle->image || !spec || !bytes || !length || spec->side < 1 ||
        spec->output_side < 1) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to CropEncode");
    }
    *bytes = NULL;
    *length = 0;
    g_object_ref(handle->image);
    VipsImage *t = cut_square(handle->image, spec);
    if (t) t = resize_square(t, spec->side, spec->output_side);
    if (t) t = shim_to_8bit(t, VIPS_INTERPRETATION_sRGB, 3);
    if (!t) return shim_fail(CVipsShim_EncodeFailed, message, "could not cut crop");
    return shim_encode(t, spec->format, spec->quality, bytes, length, message);
}
