// Decoding a photo from its file instead of from a copy of its bytes in
// memory: the header, the detection decode and the crops' region decode.
// JPEG and WebP shrink while decoding as decode.c's buffer decodes do; PNG
// and TIFF (stored upright) are read top to bottom, shrunk on the way for
// detection and cut on the way for crops, so no decode holds the photo.
#include <string.h>

#include "internal.h"

static int has_prefix(const CVipsShim_Header *header, const char *prefix) {
    return g_str_has_prefix(header->loader, prefix);
}

// Decoded by the loader's own reduction (JPEG, WebP).
static int shrinks_on_load(const CVipsShim_Header *header) {
    return header->shrinks_on_load;
}

// The file at `path`, opened lazily with loader `options`; NULL with
// libvips' error text set on failure. The name is used as it is (a
// VipsSource takes no "[options]" from it).
static VipsImage *open_file(const char *path, const char *options) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return NULL;
    VipsImage *image = vips_image_new_from_source(source, options, NULL);
    g_object_unref(source);
    return image;
}

int CVipsShim_ReadHeaderFile(const char *path, CVipsShim_Header *header, char **message) {
    return CVipsShim_ReadHeaderFileXMP(path, header, NULL, NULL, message);
}

int CVipsShim_ReadHeaderFileXMP(const char *path, CVipsShim_Header *header, char **xmp, size_t *xmp_length,
                                char **message) {
    if (xmp) *xmp = NULL;
    if (xmp_length) *xmp_length = 0;
    if (!path || !header) return shim_fail(CVipsShim_BadArgument, message, "bad arguments to ReadHeaderFile");
    memset(header, 0, sizeof *header);
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return shim_fail(CVipsShim_DecodeFailed, message, "could not open file");
    const char *loader = vips_foreign_find_load_source(source);
    if (!loader) {
        g_object_unref(source);
        // The words a decode from memory has always reported (libvips'
        // "buffer is not in a known format"), so manifests stay the same.
        vips_error_clear();
        return shim_fail(CVipsShim_DecodeFailed, message, "VipsForeignLoad: buffer is not in a known format");
    }
    const char *nickname = vips_nickname_find(g_type_from_name(loader));
    g_strlcpy(header->loader, nickname ? nickname : loader, sizeof header->loader);
    VipsImage *image = vips_image_new_from_source(source, "", NULL);
    g_object_unref(source);
    if (!image) return shim_fail(CVipsShim_DecodeFailed, message, "unreadable image header");
    shim_read_header(image, header);
    // Only a blob is read, so that nothing reaches libvips' error buffer.
    const void *blob = NULL;
    size_t blob_length = 0;
    if (xmp && xmp_length && vips_image_get_typeof(image, "xmp-data") == VIPS_TYPE_BLOB &&
        vips_image_get_blob(image, "xmp-data", &blob, &blob_length) == 0 && blob && blob_length > 0) {
        *xmp = g_try_malloc(blob_length + 1);
        if (*xmp) {
            memcpy(*xmp, blob, blob_length);
            (*xmp)[blob_length] = 0;
            *xmp_length = blob_length;
        }
    }
    shim_unref(image);
    // A PNG or TIFF stored turned would have to be turned whole.
    header->streams = shrinks_on_load(header) ||
                      ((has_prefix(header, "pngload") || has_prefix(header, "tiffload")) &&
                       header->orientation == 1);
    return CVipsShim_OK;
}

// The loader options for the file's decode keeping `min_scale` (< 1) with
// the box at `fit_scale`: the shrink of JPEG and WebP; a sequential read
// for PNG and TIFF (which have no reduction), and for every region decode.
static void file_options(const CVipsShim_Header *header, double min_scale, double fit_scale, int region,
                         char *options, size_t size) {
    if (shrinks_on_load(header)) {
        shim_load_options(header, min_scale, fit_scale, options, size);
    } else {
        g_strlcpy(options, "fail_on=truncated", size);
    }
    if ((region || !shrinks_on_load(header)) && !strstr(options, "access=")) {
        g_strlcat(options, ",access=sequential", size);
    }
}

// A PNG or TIFF (upright) fitted in the box by vips_thumbnail: read top to
// bottom and shrunk on the way. The same pixels as vips_thumbnail_image of
// the whole decode (what a decode from memory does), several times faster
// than vips_thumbnail_image of a sequential image, which re-reads it. A
// pyramid TIFF is shrunk from the pyramid's smallest page that is large
// enough.
static int thumbnail_file(const char *path, int max_width, int max_height, CVipsShim_Image **result,
                          char **message) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    VipsImage *out = NULL;
    int failed = vips_thumbnail_source(source, &out, max_width, "height", max_height, "size", VIPS_SIZE_DOWN,
                                       "no_rotate", TRUE, "option_string", "fail_on=truncated", NULL);
    g_object_unref(source);
    if (failed) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    *result = shim_handle(out);
    return CVipsShim_OK;
}

int CVipsShim_LoadScaledFile(const char *path, const CVipsShim_Header *header, double min_scale,
                             int max_width, int max_height, CVipsShim_Image **result, char **message) {
    if (!path || !header || !header->streams || max_width < 1 || max_height < 1 || !result ||
        header->width < 1 || header->height < 1) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to LoadScaledFile");
    }
    *result = NULL;
    if (!shrinks_on_load(header)) return thumbnail_file(path, max_width, max_height, result, message);
    double fit_scale = MIN((double)max_width / header->width, (double)max_height / header->height);
    if (fit_scale > 1) fit_scale = 1;
    if (min_scale > fit_scale) min_scale = fit_scale;
    char options[128];
    file_options(header, min_scale, fit_scale, 0, options, sizeof options - 24);
    VipsImage *loaded = open_file(path, options);
    if (!loaded) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    VipsImage *out = NULL;
    // At full size (a region's fallback) in memory at once, as a decode from
    // memory does: the crops cut from it then read it in any order.
    int status = min_scale >= 1 ? shim_upright_in_memory(loaded, &out, message)
                                : shim_upright_fitted(loaded, max_width, max_height, &out, message);
    if (status != CVipsShim_OK) return status;
    *result = shim_handle(out);
    return CVipsShim_OK;
}

int CVipsShim_LoadRegionFile(const char *path, const CVipsShim_Header *header, double min_scale, int left,
                             int top, int width, int height, CVipsShim_Image **result,
                             CVipsShim_Region *where, char **message) {
    if (!path || !header || !header->streams || !result || !where || width < 1 || height < 1 ||
        header->width < 1 || header->height < 1) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to LoadRegionFile");
    }
    *result = NULL;
    memset(where, 0, sizeof *where);
    if (min_scale > 1) min_scale = 1;
    char options[128];
    file_options(header, min_scale, 1, 1, options, sizeof options - 24);
    VipsImage *loaded = open_file(path, options);
    if (!loaded) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    if (shrinks_on_load(header) && !(loaded = shim_plain_srgb(loaded))) {
        int status = CVipsShim_LoadScaledFile(path, header, min_scale, header->width, header->height, result,
                                              message);
        return shim_whole_region(status, *result, where);
    }
    VipsImage *out = NULL;
    VipsRect want = {left, top, width, height};
    int status = shim_decode_region(loaded, header, want, &out, where, message);
    if (status != CVipsShim_OK) return status;
    *result = shim_handle(out);
    return CVipsShim_OK;
}
