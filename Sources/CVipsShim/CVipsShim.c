// CVipsShim: see include/CVipsShim.h. Every libvips call facecrop makes goes
// through here, so the Swift side never sees a GObject or a variadic call.
#include <math.h>
#include "CVipsShim.h"

#include <string.h>
#include <vips/vips.h>

struct CVipsShim_Image {
    VipsImage *image;
};

// Takes libvips' (process-wide) error text as the caller-owned message.
static int fail(int status, char **message, const char *fallback) {
    if (message) {
        const char *text = vips_error_buffer();
        if (text == NULL || text[0] == '\0') {
            text = fallback;
        }
        char *copy = g_strdup(text);
        g_strstrip(copy);
        // libvips ends each line with "\n"; keep one readable line, each
        // distinct line once.
        gchar **lines = g_strsplit(copy, "\n", -1);
        GString *joined = g_string_new(NULL);
        for (gchar **line = lines; *line; line++) {
            g_strstrip(*line);
            if (**line == '\0' || strstr(joined->str, *line)) continue;
            if (joined->len) g_string_append(joined, "; ");
            g_string_append(joined, *line);
        }
        g_strfreev(lines);
        g_free(copy);
        *message = g_string_free(joined, FALSE);
    }
    vips_error_clear();
    return status;
}

static void unref(VipsImage *image) {
    if (image) g_object_unref(image);
}

// libvips reports damaged-but-readable data as GLib warnings on stderr, one
// per scanline; facecrop reports problems per photo instead.
static void drop_warning(const gchar *domain, GLogLevelFlags level, const gchar *text,
                         gpointer data) {
    (void)domain;
    (void)level;
    (void)text;
    (void)data;
}

int CVipsShim_Init(const char *argv0, int concurrency, int cache_max, char **message) {
    if (VIPS_INIT(argv0 ? argv0 : "facecrop") != 0) {
        return fail(CVipsShim_DecodeFailed, message, "libvips failed to start");
    }
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
                      drop_warning, NULL);
    vips_concurrency_set(concurrency < 1 ? 1 : concurrency);
    vips_cache_set_max(cache_max < 0 ? 0 : cache_max);
    return CVipsShim_OK;
}

static void read_header(VipsImage *image, CVipsShim_Header *header) {
    header->stored_width = vips_image_get_width(image);
    header->stored_height = vips_image_get_height(image);
    header->orientation = vips_image_get_orientation(image);
    if (header->orientation < 1 || header->orientation > 8) header->orientation = 1;
    if (header->orientation >= 5) {
        header->width = header->stored_height;
        header->height = header->stored_width;
    } else {
        header->width = header->stored_width;
        header->height = header->stored_height;
    }
    header->bands = vips_image_get_bands(image);
}

int CVipsShim_ReadHeader(const void *bytes, size_t length, CVipsShim_Header *header,
                         char **message) {
    if (!bytes || length == 0 || !header) {
        return fail(CVipsShim_BadArgument, message, "empty file");
    }
    memset(header, 0, sizeof *header);
    const char *loader = vips_foreign_find_load_buffer(bytes, length);
    if (!loader) {
        return fail(CVipsShim_DecodeFailed, message, "not an image libvips can read");
    }
    // find_load gives the class name; report the operation's nickname.
    const char *nickname = vips_nickname_find(g_type_from_name(loader));
    g_strlcpy(header->loader, nickname ? nickname : loader, sizeof header->loader);
    VipsImage *image = vips_image_new_from_buffer(bytes, length, "", NULL);
    if (!image) {
        return fail(CVipsShim_DecodeFailed, message, "unreadable image header");
    }
    read_header(image, header);
    unref(image);
    return CVipsShim_OK;
}

int CVipsShim_LoadFitting(const void *bytes, size_t length, int max_width, int max_height,
                          int64_t max_pixels, CVipsShim_Image **result, char **message) {
    if (!bytes || length == 0 || max_width < 1 || max_height < 1 || !result) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to LoadFitting");
    }
    *result = NULL;
    if (max_pixels > 0) {
        CVipsShim_Header header;
        int status = CVipsShim_ReadHeader(bytes, length, &header, message);
        if (status != CVipsShim_OK) return status;
        if ((int64_t)header.stored_width * (int64_t)header.stored_height > max_pixels) {
            if (message) {
                *message = g_strdup_printf(
                    "%d x %d pixels is over the limit of %" G_GINT64_FORMAT
                    " pixels (--max-pixels)",
                    header.stored_width, header.stored_height, (gint64)max_pixels);
            }
            return CVipsShim_TooLarge;
        }
    }
    VipsImage *out = NULL;
    // thumbnail: shrink-on-load where the format has it, EXIF orientation
    // applied, never enlarged; a truncated file is an error, not grey rows.
    if (vips_thumbnail_buffer((void *)bytes, length, &out, max_width,
                              "height", max_height,
                              "size", VIPS_SIZE_DOWN,
                              "option_string", "fail_on=truncated",
                              NULL) != 0) {
        return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    CVipsShim_Image *handle = g_new0(CVipsShim_Image, 1);
    handle->image = out;
    *result = handle;
    return CVipsShim_OK;
}

int CVipsShim_ImageMaterialize(CVipsShim_Image *handle, char **message) {
    if (!handle || !handle->image) {
        return fail(CVipsShim_BadArgument, message, "no image");
    }
    VipsImage *memory = vips_image_copy_memory(handle->image);
    if (!memory) {
        return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    unref(handle->image);
    handle->image = memory;
    return CVipsShim_OK;
}

void CVipsShim_ImageSize(const CVipsShim_Image *handle, int *width, int *height) {
    *width = handle && handle->image ? vips_image_get_width(handle->image) : 0;
    *height = handle && handle->image ? vips_image_get_height(handle->image) : 0;
}

// Flattens alpha onto black and converts to `space` (B_W or sRGB), 8 bits per
// band. Takes ownership of `in`. Falls back to the first bands when libvips
// knows no colour route (e.g. a "multiband" interpretation).
static VipsImage *to_8bit(VipsImage *in, VipsInterpretation space, int bands) {
    VipsImage *t = in;
    VipsImage *next = NULL;
    if (vips_image_hasalpha(t)) {
        if (vips_flatten(t, &next, NULL) != 0) goto failed;
        unref(t);
        t = next;
    }
    if (vips_colourspace(t, &next, space, NULL) == 0) {
        unref(t);
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
        unref(t);
        t = next;
    }
    if (vips_image_get_bands(t) > bands) {
        if (vips_extract_band(t, &next, 0, "n", bands, NULL) != 0) goto failed;
        unref(t);
        t = next;
    }
    if (vips_image_get_format(t) != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(t, &next, NULL) != 0) goto failed;
        unref(t);
        t = next;
    }
    return t;
failed:
    unref(t);
    return NULL;
}

int CVipsShim_ImageGray(CVipsShim_Image *handle, uint8_t **pixels, int *width, int *height,
                        char **message) {
    if (!handle || !handle->image || !pixels || !width || !height) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to ImageGray");
    }
    *pixels = NULL;
    g_object_ref(handle->image);
    VipsImage *gray = to_8bit(handle->image, VIPS_INTERPRETATION_B_W, 1);
    if (!gray) {
        return fail(CVipsShim_DecodeFailed, message, "could not convert to grayscale");
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(gray, &size);
    *width = vips_image_get_width(gray);
    *height = vips_image_get_height(gray);
    unref(gray);
    if (!memory) {
        return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    if (size != (size_t)(*width) * (size_t)(*height)) {
        g_free(memory);
        return fail(CVipsShim_DecodeFailed, message, "unexpected grayscale layout");
    }
    *pixels = memory;
    return CVipsShim_OK;
}

int CVipsShim_ImageRGB(CVipsShim_Image *handle, uint8_t **pixels, int *width, int *height,
                        char **message) {
    if (!handle || !handle->image || !pixels || !width || !height) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to ImageRGB");
    }
    *pixels = NULL;
    g_object_ref(handle->image);
    VipsImage *rgb = to_8bit(handle->image, VIPS_INTERPRETATION_sRGB, 3);
    if (!rgb) {
        return fail(CVipsShim_DecodeFailed, message, "could not convert to sRGB");
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(rgb, &size);
    *width = vips_image_get_width(rgb);
    *height = vips_image_get_height(rgb);
    unref(rgb);
    if (!memory) {
        return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    if (size != (size_t)(*width) * (size_t)(*height) * 3) {
        g_free(memory);
        return fail(CVipsShim_DecodeFailed, message, "unexpected RGB layout");
    }
    *pixels = memory;
    return CVipsShim_OK;
}

int CVipsShim_CropEncode(CVipsShim_Image *handle, const CVipsShim_CropSpec *spec,
                         void **bytes, size_t *length, char **message) {
    if (!handle || !handle->image || !spec || !bytes || !length || spec->side < 1 ||
        spec->output_side < 1) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to CropEncode");
    }
    *bytes = NULL;
    *length = 0;
    VipsImage *t = handle->image;
    g_object_ref(t);
    VipsImage *next = NULL;
    int width = vips_image_get_width(t);
    int height = vips_image_get_height(t);
    int left = spec->left;
    int top = spec->top;
    int side = spec->side;
    int final_side = spec->side;
    int turning = spec->angle != 0.0;
    if (turning) {
        // Cut a region large enough that the turned square has no empty corners.
        int big = (int)ceil(side * 1.4143) + 2;
        left += side / 2 - big / 2;
        top += side / 2 - big / 2;
        side = big;
    }

    // A region reaching outside the image: put the image on a larger canvas
    // first, its margin filled from the edge pixels or black.
    if (left < 0 || top < 0 || left + side > width || top + side > height) {
        int ox = left < 0 ? -left : 0;
        int oy = top < 0 ? -top : 0;
        int cw = MAX(width + ox, left + ox + side);
        int ch = MAX(height + oy, top + oy + side);
        VipsExtend extend = spec->pad == CVipsShim_PadBlack ? VIPS_EXTEND_BLACK : VIPS_EXTEND_COPY;
        if (vips_embed(t, &next, ox, oy, cw, ch, "extend", extend, NULL) != 0) goto failed;
        unref(t);
        t = next;
        left += ox;
        top += oy;
    }
    if (vips_extract_area(t, &next, left, top, side, side, NULL) != 0) goto failed;
    unref(t);
    t = next;
    if (turning) {
        // vips_rotate turns clockwise for positive angles.
        if (vips_rotate(t, &next, -spec->angle, NULL) != 0) goto failed;
        unref(t);
        t = next;
        int rw = vips_image_get_width(t);
        int rh = vips_image_get_height(t);
        if (vips_extract_area(t, &next, (rw - final_side) / 2, (rh - final_side) / 2, final_side,
                              final_side, NULL) != 0) goto failed;
        unref(t);
        t = next;
        side = final_side;
    }

    if (side != spec->output_side) {
        double scale = (double)spec->output_side / (double)side;
        if (vips_resize(t, &next, scale, "vscale", scale, NULL) != 0) goto failed;
        unref(t);
        t = next;
    }
    // Rounding can leave the resized side one pixel off: cut or extend to size.
    if (vips_image_get_width(t) != spec->output_side ||
        vips_image_get_height(t) != spec->output_side) {
        if (vips_embed(t, &next, 0, 0, spec->output_side, spec->output_side,
                       "extend", VIPS_EXTEND_COPY, NULL) != 0) goto failed;
        unref(t);
        t = next;
    }
    t = to_8bit(t, VIPS_INTERPRETATION_sRGB, 3);
    if (!t) goto failed_converted;

    int quality = spec->quality < 1 ? 1 : (spec->quality > 100 ? 100 : spec->quality);
    int status = 0;
    switch (spec->format) {
    case CVipsShim_JPEG:
        status = vips_jpegsave_buffer(t, bytes, length, "Q", quality, "strip", TRUE,
                                      "optimize_coding", TRUE, NULL);
        break;
    case CVipsShim_PNG:
        status = vips_pngsave_buffer(t, bytes, length, "strip", TRUE, "compression", 6, NULL);
        break;
    case CVipsShim_WebP:
        status = vips_webpsave_buffer(t, bytes, length, "Q", quality, "strip", TRUE, NULL);
        break;
    default:
        unref(t);
        return fail(CVipsShim_BadArgument, message, "unknown output format");
    }
    unref(t);
    if (status != 0) {
        return fail(CVipsShim_EncodeFailed, message, "could not encode crop");
    }
    return CVipsShim_OK;

failed:
    unref(t);
failed_converted:
    return fail(CVipsShim_DecodeFailed, message, "could not cut crop");
}

void CVipsShim_ImageFree(CVipsShim_Image *handle) {
    if (!handle) return;
    unref(handle->image);
    g_free(handle);
}

void CVipsShim_SHA256(const void *bytes, size_t length, char hex[65]) {
    gchar *digest = g_compute_checksum_for_data(G_CHECKSUM_SHA256, bytes, length);
    g_strlcpy(hex, digest ? digest : "", 65);
    g_free(digest);
}

void CVipsShim_ClearErrors(void) {
    vips_error_clear();
}

void CVipsShim_Free(void *pointer) {
    g_free(pointer);
}
