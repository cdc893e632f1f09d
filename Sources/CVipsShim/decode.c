// Decoding a photo held in memory: its header, a decode scaled to fit a box
// (the decoder's own reduction where it has one), the part of a JPEG or WebP
// a crop covers, and the upright, in-memory and smaller copies made from a
// decode. HEIF/AVIF planes are heif.c's; pixels handed out are pixels.c's.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void shim_read_header(VipsImage *image, CVipsShim_Header *header) {
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
    header->sample_bytes = (int)vips_format_sizeof(vips_image_get_format(image));
    header->shrinks_on_load =
        g_str_has_prefix(header->loader, "jpegload") || g_str_has_prefix(header->loader, "webpload");
    shim_copy_string(image, "exif-ifd2-DateTimeOriginal", header->date_time_original,
                     sizeof header->date_time_original);
    shim_copy_string(image, "exif-ifd2-OffsetTimeOriginal", header->offset_time_original,
                     sizeof header->offset_time_original);
}

// The string metadata field `name` of `image` into `out` (cut to `size`),
// or "" when the image has none. Only a field of a string type is read, so
// that nothing is added to libvips' (shared) error buffer.
void shim_copy_string(VipsImage *image, const char *name, char *out, size_t size) {
    const char *value = NULL;
    out[0] = 0;
    GType type = vips_image_get_typeof(image, name);
    if (type != VIPS_TYPE_REF_STRING && type != G_TYPE_STRING) return;
    if (vips_image_get_string(image, name, &value) == 0 && value) g_strlcpy(out, value, size);
}

int CVipsShim_ReadHeader(const void *bytes, size_t length, CVipsShim_Header *header,
                         char **message) {
    if (!bytes || length == 0 || !header) {
        return shim_fail(CVipsShim_BadArgument, message, "empty file");
    }
    memset(header, 0, sizeof *header);
    const char *loader = vips_foreign_find_load_buffer(bytes, length);
    if (!loader) {
        return shim_fail(CVipsShim_DecodeFailed, message, "not an image libvips can read");
    }
    // find_load gives the class name; report the operation's nickname.
    const char *nickname = vips_nickname_find(g_type_from_name(loader));
    g_strlcpy(header->loader, nickname ? nickname : loader, sizeof header->loader);
    VipsImage *image = vips_image_new_from_buffer(bytes, length, "", NULL);
    if (!image) {
        return shim_fail(CVipsShim_DecodeFailed, message, "unreadable image header");
    }
    shim_read_header(image, header);
    shim_unref(image);
    return CVipsShim_OK;
}

// The loader's own reduction for a photo: JPEG decodes at 1/2, 1/4 or 1/8
// (scaled IDCT) and WebP at any scale, far cheaper than decoding whole and
// resizing. Takes the largest reduction that keeps at least `min_scale`.
// vips_thumbnail would leave a further factor of two for its resize, which
// for 4032 px photos fitted to 1024 px means decoding all 12 MP.
void shim_load_options(const CVipsShim_Header *header, double min_scale, double fit_scale,
                         char *options, size_t size) {
    const char *loader = header->loader;
    if (g_str_has_prefix(loader, "jpegload") && min_scale < 1) {
        int shrink = 1;
        while (shrink < 8 && 1.0 / (shrink * 2) >= min_scale) shrink *= 2;
        g_snprintf(options, size, "fail_on=truncated,shrink=%d", shrink);
    } else if (g_str_has_prefix(loader, "webpload") && min_scale < 1) {
        // libwebp scales while decoding, to any size: straight to the box,
        // or to `min_scale` when the box is the whole photo.
        g_snprintf(options, size, "fail_on=truncated,scale=%.6f", fit_scale < 1 ? fit_scale : min_scale);
    } else if (min_scale >= 1) {
        // A whole decode is copied to memory once, straight from the loader.
        g_snprintf(options, size, "fail_on=truncated,access=sequential");
    } else {
        g_snprintf(options, size, "fail_on=truncated");
    }
}

// Decodes `lazy` into memory now (one copy), then turns it upright. Takes
// `lazy`.
int shim_upright_in_memory(VipsImage *lazy, VipsImage **out, char **message) {
    VipsImage *memory = vips_image_copy_memory(lazy);
    shim_unref(lazy);
    if (!memory) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    int orientation = vips_image_get_orientation(memory);
    if (orientation > 1 && orientation <= 8) {
        VipsImage *upright = NULL;
        if (vips_autorot(memory, &upright, NULL) != 0) {
            shim_unref(memory);
            return shim_fail(CVipsShim_DecodeFailed, message, "could not rotate image");
        }
        shim_unref(memory);
        memory = upright;
    }
    *out = memory;
    return CVipsShim_OK;
}

// Turns `loaded` upright and fits it in the box, lazily (decoded where read);
// also brings CMYK and 16-bit photos to what the rest expects. Takes `loaded`.
int shim_upright_fitted(VipsImage *loaded, int max_width, int max_height, VipsImage **out, char **message) {
    VipsImage *upright = NULL;
    int failed = vips_autorot(loaded, &upright, NULL);
    shim_unref(loaded);
    if (failed) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    failed = vips_thumbnail_image(upright, out, max_width, "height", max_height,
                                  "size", VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL);
    shim_unref(upright);
    if (failed) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    return CVipsShim_OK;
}

int CVipsShim_LoadScaled(const void *bytes, size_t length, const CVipsShim_Header *header,
                         double min_scale, int max_width, int max_height,
                         CVipsShim_Image **result, char **message) {
    if (!bytes || length == 0 || !header || max_width < 1 || max_height < 1 || !result ||
        header->width < 1 || header->height < 1) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to LoadScaled");
    }
    *result = NULL;
    double fit_scale = fmin((double)max_width / header->width, (double)max_height / header->height);
    if (fit_scale > 1) fit_scale = 1;
    if (min_scale > fit_scale) min_scale = fit_scale;
    VipsImage *out = NULL;
    if (min_scale >= 1 && g_str_has_prefix(header->loader, "heifload") &&
        shim_load_heif_planes(bytes, length, header, &out)) {
        *result = shim_handle(out);
        return CVipsShim_OK;
    }
    char options[96];
    shim_load_options(header, min_scale, fit_scale, options, sizeof options);
    VipsImage *loaded = vips_image_new_from_buffer(bytes, length, options, NULL);
    if (loaded && g_str_has_prefix(header->loader, "heifload")) loaded = shim_heifload_unlent(loaded);
    if (!loaded) {
        return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    int status = min_scale >= 1 ? shim_upright_in_memory(loaded, &out, message)
                                : shim_upright_fitted(loaded, max_width, max_height, &out, message);
    if (status != CVipsShim_OK) return status;
    *result = shim_handle(out);
    return CVipsShim_OK;
}

// Upright pixel (u, v) of an image stored `stored_width` x `stored_height`
// with EXIF `orientation` -> its stored pixel (*x, *y).
static void stored_pixel(int orientation, int stored_width, int stored_height, int u, int v, int *x, int *y) {
    switch (orientation) {
        case 2: *x = stored_width - 1 - u; *y = v; break;
        case 3: *x = stored_width - 1 - u; *y = stored_height - 1 - v; break;
        case 4: *x = u; *y = stored_height - 1 - v; break;
        case 5: *x = v; *y = u; break;
        case 6: *x = v; *y = stored_height - 1 - u; break;
        case 7: *x = stored_width - 1 - v; *y = stored_height - 1 - u; break;
        case 8: *x = stored_width - 1 - v; *y = u; break;
        default: *x = u; *y = v; break;
    }
}

// A JPEG or WebP opened to be read top to bottom at the decoder's largest
// reduction that keeps `min_scale` (<= 1), into `*loaded`. `*loaded` stays
// NULL for other formats and for anything libvips must convert (CMYK,
// 16-bit, gray): those are decoded whole.
static int open_for_region(const void *bytes, size_t length, const CVipsShim_Header *header, double min_scale,
                           VipsImage **loaded, char **message) {
    *loaded = NULL;
    if (!g_str_has_prefix(header->loader, "jpegload") && !g_str_has_prefix(header->loader, "webpload")) {
        return CVipsShim_OK;
    }
    char options[128];
    shim_load_options(header, min_scale, 1, options, sizeof options - 24);
    if (!strstr(options, "access=")) g_strlcat(options, ",access=sequential", sizeof options);
    VipsImage *image = vips_image_new_from_buffer(bytes, length, options, NULL);
    if (!image) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    *loaded = shim_plain_srgb(image);
    return CVipsShim_OK;
}

VipsImage *shim_plain_srgb(VipsImage *image) {
    if (vips_image_get_bands(image) != 3 || vips_image_get_format(image) != VIPS_FORMAT_UCHAR ||
        vips_image_get_interpretation(image) != VIPS_INTERPRETATION_sRGB) {
        shim_unref(image);
        return NULL;
    }
    return image;
}

// Reads the first `rows` rows of a sequentially read image, a strip at a
// time and in order: asked for a region below them at once, libvips'
// sequential reader keeps every row it reads on the way down (a 100 px area
// at the bottom of a 12 MP photo cost 33 MB; this way, a few hundred KB).
static int read_rows_above(VipsImage *image, int rows) {
    VipsRegion *strip = vips_region_new(image);
    int width = vips_image_get_width(image);
    int failed = 0;
    for (int row = 0; row < rows && !failed; row += 64) {
        VipsRect band = {0, row, width, MIN(64, rows - row)};
        failed = vips_region_prepare(strip, &band) != 0;
    }
    g_object_unref(strip);
    return !failed;
}

// Decodes the part of `loaded` (opened by open_for_region) that covers
// `want` (upright pixels of the full-size photo), a pixel wider on every
// side for the rounding of the crops cut from it, upright, into memory; says
// where it lies in `*where`. Takes `loaded`.
int shim_decode_region(VipsImage *loaded, const CVipsShim_Header *header, VipsRect want, VipsImage **out,
                         CVipsShim_Region *where, char **message) {
    int stored_width = vips_image_get_width(loaded);
    int stored_height = vips_image_get_height(loaded);
    int orientation = vips_image_get_orientation(loaded);
    if (orientation < 1 || orientation > 8) orientation = 1;
    int upright_width = orientation >= 5 ? stored_height : stored_width;
    int upright_height = orientation >= 5 ? stored_width : stored_height;
    double fx = (double)upright_width / header->width;
    double fy = (double)upright_height / header->height;
    int l = MAX(0, (int)floor(want.left * fx) - 1);
    int t = MAX(0, (int)floor(want.top * fy) - 1);
    int r = MIN(upright_width, (int)ceil((want.left + want.width) * fx) + 1);
    int b = MIN(upright_height, (int)ceil((want.top + want.height) * fy) + 1);
    if (r <= l || b <= t) {
        shim_unref(loaded);
        return shim_fail(CVipsShim_BadArgument, message, "region outside the photo");
    }
    int x0, y0, x1, y1;
    stored_pixel(orientation, stored_width, stored_height, l, t, &x0, &y0);
    stored_pixel(orientation, stored_width, stored_height, r - 1, b - 1, &x1, &y1);
    int skip = MIN(y0, y1);
    VipsImage *area = NULL;
    int failed = !read_rows_above(loaded, skip) ||
                 vips_extract_area(loaded, &area, MIN(x0, x1), skip, abs(x1 - x0) + 1, abs(y1 - y0) + 1, NULL);
    shim_unref(loaded);
    if (failed) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    int status = shim_upright_in_memory(area, out, message);
    if (status != CVipsShim_OK) return status;
    where->decode_width = upright_width;
    where->decode_height = upright_height;
    where->left = l;
    where->top = t;
    return CVipsShim_OK;
}

int CVipsShim_LoadRegion(const void *bytes, size_t length, const CVipsShim_Header *header,
                         double min_scale, int left, int top, int width, int height,
                         CVipsShim_Image **result, CVipsShim_Region *where, char **message) {
    if (!bytes || length == 0 || !header || !result || !where || width < 1 || height < 1 ||
        header->width < 1 || header->height < 1) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to LoadRegion");
    }
    *result = NULL;
    memset(where, 0, sizeof *where);
    // Never enlarged (CVipsShim_LoadScaled would cap it so too).
    if (min_scale > 1) min_scale = 1;
    VipsImage *loaded = NULL;
    int status = open_for_region(bytes, length, header, min_scale, &loaded, message);
    if (status != CVipsShim_OK) return status;
    if (!loaded) {
        status = CVipsShim_LoadScaled(bytes, length, header, min_scale, header->width, header->height, result,
                                      message);
        return shim_whole_region(status, *result, where);
    }
    VipsImage *out = NULL;
    VipsRect want = {left, top, width, height};
    status = shim_decode_region(loaded, header, want, &out, where, message);
    if (status != CVipsShim_OK) return status;
    *result = shim_handle(out);
    return CVipsShim_OK;
}

int shim_whole_region(int status, const CVipsShim_Image *decoded, CVipsShim_Region *where) {
    if (status == CVipsShim_OK) {
        where->decode_width = vips_image_get_width(decoded->image);
        where->decode_height = vips_image_get_height(decoded->image);
    }
    return status;
}

int CVipsShim_ImageMaterialize(CVipsShim_Image *handle, char **message) {
    if (!handle || !handle->image) {
        return shim_fail(CVipsShim_BadArgument, message, "no image");
    }
    VipsImage *memory = vips_image_copy_memory(handle->image);
    if (!memory) {
        return shim_fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    shim_unref(handle->image);
    handle->image = memory;
    return CVipsShim_OK;
}

int CVipsShim_ImageFitting(CVipsShim_Image *handle, int max_width, int max_height,
                           CVipsShim_Image **result, char **message) {
    if (!handle || !handle->image || max_width < 1 || max_height < 1 || !result) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to ImageFitting");
    }
    *result = NULL;
    VipsImage *out = NULL;
    // Already upright: no second rotation.
    if (vips_thumbnail_image(handle->image, &out, max_width, "height", max_height,
                             "size", VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL) != 0) {
        return shim_fail(CVipsShim_DecodeFailed, message, "could not resize image");
    }
    *result = shim_handle(out);
    return CVipsShim_OK;
}

void CVipsShim_ImageSize(const CVipsShim_Image *handle, int *width, int *height) {
    *width = handle && handle->image ? vips_image_get_width(handle->image) : 0;
    *height = handle && handle->image ? vips_image_get_height(handle->image) : 0;
}
