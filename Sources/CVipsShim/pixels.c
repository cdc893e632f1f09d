// Pixels handed to the caller: any decode as packed 8-bit grayscale or sRGB
// (what the detectors read), and a crop file read back at a fixed size into
// the caller's buffer (the frames of a clip). Also the 8-bit conversion the
// crop and sheet files use.
#include <string.h>

#include "internal.h"

// Falls back to the first bands when libvips knows no colour route (e.g. a
// "multiband" interpretation), or to one band three times for gray -> sRGB.
VipsImage *shim_to_8bit(VipsImage *in, VipsInterpretation space, int bands) {
    VipsImage *t = in;
    VipsImage *next = NULL;
    if (vips_image_hasalpha(t)) {
        if (vips_flatten(t, &next, NULL) != 0) goto failed;
        shim_unref(t);
        t = next;
    }
    if (vips_colourspace(t, &next, space, NULL) == 0) {
        shim_unref(t);
        t = next;
    } else {
        vips_error_clear();
        int have = vips_image_get_bands(t);
        if (have >= bands) {
            if (vips_extract_band(t, &next, 0, "n", bands, NULL) != 0) goto failed;
        } else if (have == 1 && bands == 3) {
            VipsImage *copies[3] = {t, t, t};
            if (vips_bandjoin(copies, &next, 3, NULL) != 0) goto failed;
        } else {
            goto failed;
        }
        shim_unref(t);
        t = next;
    }
    if (vips_image_get_bands(t) > bands) {
        if (vips_extract_band(t, &next, 0, "n", bands, NULL) != 0) goto failed;
        shim_unref(t);
        t = next;
    }
    if (vips_image_get_format(t) != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(t, &next, NULL) != 0) goto failed;
        shim_unref(t);
        t = next;
    }
    return t;
failed:
    shim_unref(t);
    return NULL;
}

// The image's pixels as 8-bit `bands`-band `space`, rows packed, in memory
// the caller frees with CVipsShim_Free.
static int image_pixels(CVipsShim_Image *handle, VipsInterpretation space, int bands,
                        uint8_t **pixels, int *width, int *height, char **message) {
    if (!handle || !handle->image || !pixels || !width || !height) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to image pixels");
    }
    *pixels = NULL;
    g_object_ref(handle->image);
    VipsImage *converted = shim_to_8bit(handle->image, space, bands);
    if (!converted) {
        return shim_fail(CVipsShim_DecodeFailed, message,
                         bands == 1 ? "could not convert to grayscale" : "could not convert to sRGB");
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(converted, &size);
    *width = vips_image_get_width(converted);
    *height = vips_image_get_height(converted);
    shim_unref(converted);
    if (!memory) {
        return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    if (size != (size_t)(*width) * (size_t)(*height) * (size_t)bands) {
        g_free(memory);
        return shim_fail(CVipsShim_DecodeFailed, message, "unexpected pixel layout");
    }
    *pixels = memory;
    return CVipsShim_OK;
}

int CVipsShim_ImageGray(CVipsShim_Image *handle, uint8_t **pixels, int *width, int *height,
                        char **message) {
    return image_pixels(handle, VIPS_INTERPRETATION_B_W, 1, pixels, width, height, message);
}

int CVipsShim_ImageRGB(CVipsShim_Image *handle, uint8_t **pixels, int *width, int *height,
                       char **message) {
    return image_pixels(handle, VIPS_INTERPRETATION_sRGB, 3, pixels, width, height, message);
}

int CVipsShim_LoadRGB(const char *path, int side, uint8_t *rgb, size_t capacity, char **message) {
    if (!path || side < 1 || !rgb || capacity < (size_t)side * (size_t)side * 3) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to LoadRGB");
    }
    VipsImage *t = NULL;
    VipsImage *next = NULL;
    // thumbnail: shrink-on-load, and "force" gives exactly side x side
    // (crops are square, so nothing is distorted).
    if (vips_thumbnail(path, &t, side, "height", side, "size", VIPS_SIZE_FORCE, NULL) != 0) {
        return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    if (vips_image_get_width(t) != side || vips_image_get_height(t) != side) {
        if (vips_embed(t, &next, 0, 0, side, side, "extend", VIPS_EXTEND_COPY, NULL) != 0) {
            shim_unref(t);
            return shim_fail(CVipsShim_DecodeFailed, message, "could not resize image");
        }
        shim_unref(t);
        t = next;
    }
    t = shim_to_8bit(t, VIPS_INTERPRETATION_sRGB, 3);
    if (!t) return shim_fail(CVipsShim_DecodeFailed, message, "could not convert to sRGB");
    size_t size = 0;
    void *memory = vips_image_write_to_memory(t, &size);
    shim_unref(t);
    if (!memory) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    if (size != (size_t)side * (size_t)side * 3) {
        g_free(memory);
        return shim_fail(CVipsShim_DecodeFailed, message, "unexpected RGB layout");
    }
    memcpy(rgb, memory, size);
    g_free(memory);
    return CVipsShim_OK;
}
