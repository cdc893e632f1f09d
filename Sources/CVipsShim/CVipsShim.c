// CVipsShim: see include/CVipsShim.h. Every libvips call facecrop makes goes
// through here, so the Swift side never sees a GObject or a variadic call.
#include <math.h>
#include "CVipsShim.h"

#include <malloc.h>
#include <string.h>
#include <libheif/heif.h>
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

void CVipsShim_TrimMemory(void) {
    malloc_trim(0);
}

void CVipsShim_ThreadDone(void) {
    vips_thread_shutdown();
}

void CVipsShim_TuneMalloc(int mmap_threshold, int arenas) {
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    mallopt(M_ARENA_MAX, arenas);
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

// The loader's own reduction for a photo: JPEG decodes at 1/2, 1/4 or 1/8
// (scaled IDCT) and WebP at any scale, far cheaper than decoding whole and
// resizing. Takes the largest reduction that keeps at least `min_scale`.
// vips_thumbnail would leave a further factor of two for its resize, which
// for 4032 px photos fitted to 1024 px means decoding all 12 MP.
static void load_options(const CVipsShim_Header *header, double min_scale, double fit_scale,
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

// HEIF and AVIF through libheif's own planes.
//
// vips' heifload asks libheif for interleaved RGB: libheif decodes the
// tiles into Y'CbCr planes, converts them into a second, RGB image, and
// libvips copies that into a third; a 12 MP HEIC peaks at about 130 MB.
// Here libheif hands over its 4:2:0 planes (18 MB for 12 MP), which are
// kept, and RGB is made from them only where pixels are read: once for the
// detection copy, and for each crop's region.
// Only 8-bit 4:2:0 images without alpha take this route, which is what
// cameras write; the rest go through heifload.

// Whether every coded-image configuration in the file's `meta` box (`hvcC`
// for HEIC, `av1C` for AVIF) says 8-bit 4:2:0. Read from the bytes, since
// libheif 1.15 tells the chroma only after decoding, converted to whatever
// was asked for; a 4:4:4 photo asked for as 4:2:0 would lose colour detail.
static int coded_as_420(const uint8_t *bytes, size_t length) {
    size_t at = 0;
    while (at + 8 <= length) {
        uint64_t size = ((uint64_t)bytes[at] << 24) | ((uint64_t)bytes[at + 1] << 16) |
                        ((uint64_t)bytes[at + 2] << 8) | bytes[at + 3];
        size_t header = 8;
        if (size == 1 && at + 16 <= length) {
            size = 0;
            for (int i = 8; i < 16; i++) size = (size << 8) | bytes[at + i];
            header = 16;
        } else if (size == 0) {
            size = length - at;
        }
        if (size < header || size > length - at) return 0;
        if (memcmp(bytes + at + 4, "meta", 4) == 0) {
            const uint8_t *meta = bytes + at;
            int found = 0;
            for (size_t i = 4; i + 4 + 19 <= size; i++) {
                if (memcmp(meta + i, "hvcC", 4) == 0) {
                    const uint8_t *c = meta + i + 4;
                    // chromaFormat (1 = 4:2:0) and bit depths minus 8.
                    if ((c[16] & 3) != 1 || (c[17] & 7) != 0 || (c[18] & 7) != 0) return 0;
                    found = 1;
                } else if (memcmp(meta + i, "av1C", 4) == 0) {
                    // high_bitdepth, monochrome, subsampling x and y.
                    uint8_t flags = meta[i + 4 + 2];
                    if ((flags & 0x40) || (flags & 0x10) || !(flags & 0x08) || !(flags & 0x04)) return 0;
                    found = 1;
                }
            }
            return found;
        }
        at += size;
    }
    return 0;
}

// Y'CbCr -> R'G'B' in 16.16 fixed point, for the stream's matrix and range
// (ITU-T H.273): R = ys (Y - yo) + cr_r (Cr - 128), G = ys (Y - yo) - cb_g
// (Cb - 128) - cr_g (Cr - 128), B = ys (Y - yo) + cb_b (Cb - 128).
typedef struct {
    int32_t ys, yo, cr_r, cb_g, cr_g, cb_b;
} YCbCrMatrix;

static YCbCrMatrix ycbcr_matrix(const struct heif_color_profile_nclx *nclx) {
    double kr = 0.299, kb = 0.114;  // BT.601 (5, 6), and libheif's default
    int full = 1;
    if (nclx) {
        full = nclx->full_range_flag != 0;
        switch (nclx->matrix_coefficients) {
            case 1: kr = 0.2126; kb = 0.0722; break;           // BT.709
            case 9: case 10: kr = 0.2627; kb = 0.0593; break;  // BT.2020
            case 4: kr = 0.30; kb = 0.11; break;               // FCC
            case 7: kr = 0.212; kb = 0.087; break;             // SMPTE 240M
            default: break;
        }
    }
    double kg = 1 - kr - kb;
    double ys = full ? 1 : 255.0 / 219.0;
    double cs = full ? 1 : 255.0 / 224.0;
    double one = 65536;
    YCbCrMatrix m = {
        (int32_t)lround(ys * one),
        full ? 0 : 16,
        (int32_t)lround(2 * (1 - kr) * cs * one),
        (int32_t)lround(2 * kb * (1 - kb) / kg * cs * one),
        (int32_t)lround(2 * kr * (1 - kr) / kg * cs * one),
        (int32_t)lround(2 * (1 - kb) * cs * one),
    };
    return m;
}

static inline uint8_t clip8(int32_t v) {
    v = (v + 32768) >> 16;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

// The decoded planes behind a lazy sRGB image: the planes stay as libheif
// made them (18 MB for 12 MP) and pixels are converted only where libvips
// asks for them, on any of its threads. Freed when the image closes.
typedef struct {
    struct heif_image *planes;
    const uint8_t *y, *cb, *cr;
    int y_stride, cb_stride, cr_stride;
    YCbCrMatrix m;
} PlaneSource;

static void plane_source_free(VipsImage *image, PlaneSource *source) {
    (void)image;
    heif_image_release(source->planes);
    g_free(source);
}

// Fills a region of the sRGB image; each chroma sample covers its 2 x 2
// block, as in libheif's own conversion.
static int plane_source_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)sequence;
    (void)b;
    (void)stop;
    const PlaneSource *source = a;
    const VipsRect *r = &out->valid;
    YCbCrMatrix m = source->m;
    for (int row = r->top; row < VIPS_RECT_BOTTOM(r); row++) {
        const uint8_t *ys = source->y + (size_t)row * source->y_stride;
        const uint8_t *cbs = source->cb + (size_t)(row / 2) * source->cb_stride;
        const uint8_t *crs = source->cr + (size_t)(row / 2) * source->cr_stride;
        uint8_t *dst = VIPS_REGION_ADDR(out, r->left, row);
        for (int x = r->left; x < VIPS_RECT_RIGHT(r); x++) {
            int32_t luma = (ys[x] - m.yo) * m.ys;
            int32_t cb = cbs[x / 2] - 128;
            int32_t cr = crs[x / 2] - 128;
            dst[0] = clip8(luma + m.cr_r * cr);
            dst[1] = clip8(luma - m.cb_g * cb - m.cr_g * cr);
            dst[2] = clip8(luma + m.cb_b * cb);
            dst += 3;
        }
    }
    return 0;
}

// Wraps 4:2:0 planes as a lazy sRGB image that owns them; on failure the
// planes are released too.
static VipsImage *planes_as_rgb(struct heif_image *decoded, int width, int height, YCbCrMatrix m) {
    PlaneSource *source = g_new0(PlaneSource, 1);
    source->planes = decoded;
    source->m = m;
    source->y = heif_image_get_plane_readonly(decoded, heif_channel_Y, &source->y_stride);
    source->cb = heif_image_get_plane_readonly(decoded, heif_channel_Cb, &source->cb_stride);
    source->cr = heif_image_get_plane_readonly(decoded, heif_channel_Cr, &source->cr_stride);
    if (!source->y || !source->cb || !source->cr || heif_image_get_width(decoded, heif_channel_Y) < width ||
        heif_image_get_height(decoded, heif_channel_Y) < height ||
        heif_image_get_width(decoded, heif_channel_Cb) < (width + 1) / 2 ||
        heif_image_get_height(decoded, heif_channel_Cb) < (height + 1) / 2 ||
        heif_image_get_width(decoded, heif_channel_Cr) < (width + 1) / 2 ||
        heif_image_get_height(decoded, heif_channel_Cr) < (height + 1) / 2) {
        plane_source_free(NULL, source);
        return NULL;
    }
    VipsImage *out = vips_image_new();
    g_signal_connect(out, "close", G_CALLBACK(plane_source_free), source);
    vips_image_init_fields(out, width, height, 3, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB,
                           1.0, 1.0);
    // Any region is as cheap as any other. Marked as the other whole
    // decodes are (a sequential load copied to memory), so that libvips
    // shrinks it top to bottom in one pass: without the mark, fitting a 12
    // MP image took 0.35 s instead of 0.06 s.
    vips_image_set_int(out, VIPS_META_SEQUENTIAL, 1);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_ANY, NULL) != 0 ||
        vips_image_generate(out, NULL, plane_source_generate, NULL, source, NULL) != 0) {
        unref(out);
        return NULL;
    }
    return out;
}

// Returns 1 with `*out` set, or 0 when this route does not apply or fails
// (the caller then decodes through heifload, which reports any error).
static int load_heif_planes(const void *bytes, size_t length, const CVipsShim_Header *header, VipsImage **out) {
    *out = NULL;
    if (!coded_as_420(bytes, length)) return 0;
    struct heif_context *context = heif_context_alloc();
    if (!context) return 0;
    struct heif_image_handle *handle = NULL;
    struct heif_image *decoded = NULL;
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_context_read_from_memory_without_copy(context, bytes, length, NULL).code != heif_error_Ok) goto finish;
    if (heif_context_get_primary_image_handle(context, &handle).code != heif_error_Ok) goto finish;
    if (heif_image_handle_has_alpha_channel(handle) || heif_image_handle_get_luma_bits_per_pixel(handle) != 8 ||
        heif_image_handle_get_chroma_bits_per_pixel(handle) != 8) {
        goto finish;
    }
    // Asked for as coded, libheif hands over the decoder's planes with no
    // conversion. It applies the rotation and mirror itself.
    if (heif_decode_image(handle, &decoded, heif_colorspace_YCbCr, heif_chroma_420, NULL).code != heif_error_Ok) {
        goto finish;
    }
    int width = heif_image_get_primary_width(decoded);
    int height = heif_image_get_primary_height(decoded);
    // The header said what the photo's upright size is; anything else is heifload's to handle.
    if (width != header->width || height != header->height) goto finish;
    if (heif_image_get_colorspace(decoded) != heif_colorspace_YCbCr ||
        heif_image_get_chroma_format(decoded) != heif_chroma_420 ||
        heif_image_get_bits_per_pixel_range(decoded, heif_channel_Y) != 8 ||
        heif_image_get_bits_per_pixel_range(decoded, heif_channel_Cb) != 8 ||
        heif_image_get_bits_per_pixel_range(decoded, heif_channel_Cr) != 8) {
        goto finish;
    }
    // The colour description libheif's own RGB conversion (heifload's
    // route) uses: the decoded image's, else BT.601 full range. (libheif
    // 1.15 does not apply the file's `colr` box here: its RGB came out the
    // same for files that declared BT.709 or limited range.)
    if (heif_image_get_nclx_color_profile(decoded, &nclx).code != heif_error_Ok) nclx = NULL;
    if (nclx && (nclx->matrix_coefficients == 0 || nclx->matrix_coefficients >= 11)) goto finish;
    *out = planes_as_rgb(decoded, width, height, ycbcr_matrix(nclx));
    decoded = NULL;  // the image owns the planes now, or they are gone
finish:
    if (!*out) vips_error_clear();
    if (nclx) heif_nclx_color_profile_free(nclx);
    if (decoded) heif_image_release(decoded);
    if (handle) heif_image_handle_release(handle);
    heif_context_free(context);
    return *out != NULL;
}

int CVipsShim_LoadScaled(const void *bytes, size_t length, const CVipsShim_Header *header,
                         double min_scale, int max_width, int max_height,
                         CVipsShim_Image **result, char **message) {
    if (!bytes || length == 0 || !header || max_width < 1 || max_height < 1 || !result ||
        header->width < 1 || header->height < 1) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to LoadScaled");
    }
    *result = NULL;
    double fit_scale = fmin((double)max_width / header->width, (double)max_height / header->height);
    if (fit_scale > 1) fit_scale = 1;
    if (min_scale > fit_scale) min_scale = fit_scale;
    if (min_scale >= 1 && g_str_has_prefix(header->loader, "heifload")) {
        VipsImage *planes = NULL;
        if (load_heif_planes(bytes, length, header, &planes)) {
            CVipsShim_Image *handle = g_new0(CVipsShim_Image, 1);
            handle->image = planes;
            *result = handle;
            return CVipsShim_OK;
        }
    }
    char options[96];
    load_options(header, min_scale, fit_scale, options, sizeof options);
    VipsImage *loaded = vips_image_new_from_buffer(bytes, length, options, NULL);
    if (!loaded) {
        return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    VipsImage *out = NULL;
    if (min_scale >= 1) {
        // Whole: decode into memory now (one copy), then turn it upright.
        out = vips_image_copy_memory(loaded);
        unref(loaded);
        if (!out) return fail(CVipsShim_DecodeFailed, message, "could not decode image");
        int orientation = vips_image_get_orientation(out);
        if (orientation > 1 && orientation <= 8) {
            VipsImage *upright = NULL;
            if (vips_autorot(out, &upright, NULL) != 0) {
                unref(out);
                return fail(CVipsShim_DecodeFailed, message, "could not rotate image");
            }
            unref(out);
            out = upright;
        }
    } else {
        VipsImage *upright = NULL;
        int failed = vips_autorot(loaded, &upright, NULL);
        unref(loaded);
        if (failed) return fail(CVipsShim_DecodeFailed, message, "could not decode image");
        // Fit the box; also brings CMYK and 16-bit photos to what the rest expects.
        failed = vips_thumbnail_image(upright, &out, max_width, "height", max_height,
                                      "size", VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL);
        unref(upright);
        if (failed) return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    CVipsShim_Image *handle = g_new0(CVipsShim_Image, 1);
    handle->image = out;
    *result = handle;
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

int CVipsShim_LoadRegion(const void *bytes, size_t length, const CVipsShim_Header *header,
                         double min_scale, int left, int top, int width, int height,
                         CVipsShim_Image **result, CVipsShim_Region *where, char **message) {
    if (!bytes || length == 0 || !header || !result || !where || width < 1 || height < 1 ||
        header->width < 1 || header->height < 1) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to LoadRegion");
    }
    *result = NULL;
    memset(where, 0, sizeof *where);
    int reducible = g_str_has_prefix(header->loader, "jpegload") || g_str_has_prefix(header->loader, "webpload");
    VipsImage *loaded = NULL;
    if (reducible) {
        if (min_scale > 1) min_scale = 1;
        char options[128];
        load_options(header, min_scale, 1, options, sizeof options - 24);
        if (!strstr(options, "access=")) g_strlcat(options, ",access=sequential", sizeof options);
        loaded = vips_image_new_from_buffer(bytes, length, options, NULL);
        if (!loaded) return fail(CVipsShim_DecodeFailed, message, "could not decode image");
        // Plain 8-bit sRGB only; anything libvips must convert is decoded whole below.
        if (vips_image_get_bands(loaded) != 3 || vips_image_get_format(loaded) != VIPS_FORMAT_UCHAR ||
            vips_image_get_interpretation(loaded) != VIPS_INTERPRETATION_sRGB) {
            unref(loaded);
            loaded = NULL;
        }
    }
    if (!loaded) {
        int status = CVipsShim_LoadScaled(bytes, length, header, min_scale, header->width, header->height, result,
                                          message);
        if (status == CVipsShim_OK) {
            where->decode_width = vips_image_get_width((*result)->image);
            where->decode_height = vips_image_get_height((*result)->image);
        }
        return status;
    }
    int stored_width = vips_image_get_width(loaded);
    int stored_height = vips_image_get_height(loaded);
    int orientation = vips_image_get_orientation(loaded);
    if (orientation < 1 || orientation > 8) orientation = 1;
    int upright_width = orientation >= 5 ? stored_height : stored_width;
    int upright_height = orientation >= 5 ? stored_width : stored_height;
    // The region at the decoded scale, a pixel wider on every side for the
    // rounding of the crops cut from it, within the photo.
    double fx = (double)upright_width / header->width;
    double fy = (double)upright_height / header->height;
    int l = MAX(0, (int)floor(left * fx) - 1);
    int t = MAX(0, (int)floor(top * fy) - 1);
    int r = MIN(upright_width, (int)ceil((left + width) * fx) + 1);
    int b = MIN(upright_height, (int)ceil((top + height) * fy) + 1);
    if (r <= l || b <= t) {
        unref(loaded);
        return fail(CVipsShim_BadArgument, message, "region outside the photo");
    }
    int x0, y0, x1, y1;
    stored_pixel(orientation, stored_width, stored_height, l, t, &x0, &y0);
    stored_pixel(orientation, stored_width, stored_height, r - 1, b - 1, &x1, &y1);
    // Read the rows above the area first, a strip at a time and in order:
    // asked for the area at once, libvips' sequential reader keeps every row
    // it reads on the way down (a 100 px area at the bottom of a 12 MP photo
    // cost 33 MB; this way, a few hundred KB).
    int skip = MIN(y0, y1);
    VipsRegion *strip = vips_region_new(loaded);
    for (int row = 0; row < skip; row += 64) {
        VipsRect rows = {0, row, stored_width, MIN(64, skip - row)};
        if (vips_region_prepare(strip, &rows) != 0) {
            g_object_unref(strip);
            unref(loaded);
            return fail(CVipsShim_DecodeFailed, message, "could not decode image");
        }
    }
    g_object_unref(strip);
    VipsImage *area = NULL;
    int failed = vips_extract_area(loaded, &area, MIN(x0, x1), skip, abs(x1 - x0) + 1, abs(y1 - y0) + 1, NULL);
    unref(loaded);
    if (failed) return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    VipsImage *out = vips_image_copy_memory(area);
    unref(area);
    if (!out) return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    if (orientation > 1) {
        VipsImage *upright = NULL;
        failed = vips_autorot(out, &upright, NULL);
        unref(out);
        if (failed) return fail(CVipsShim_DecodeFailed, message, "could not rotate image");
        out = upright;
    }
    CVipsShim_Image *handle = g_new0(CVipsShim_Image, 1);
    handle->image = out;
    *result = handle;
    where->decode_width = upright_width;
    where->decode_height = upright_height;
    where->left = l;
    where->top = t;
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

int CVipsShim_ImageFitting(CVipsShim_Image *handle, int max_width, int max_height,
                           CVipsShim_Image **result, char **message) {
    if (!handle || !handle->image || max_width < 1 || max_height < 1 || !result) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to ImageFitting");
    }
    *result = NULL;
    VipsImage *out = NULL;
    // Already upright: no second rotation.
    if (vips_thumbnail_image(handle->image, &out, max_width, "height", max_height,
                             "size", VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL) != 0) {
        return fail(CVipsShim_DecodeFailed, message, "could not resize image");
    }
    CVipsShim_Image *made = g_new0(CVipsShim_Image, 1);
    made->image = out;
    *result = made;
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

// The image's pixels as 8-bit `bands`-band `space`, rows packed, in memory
// the caller frees with CVipsShim_Free.
static int image_pixels(CVipsShim_Image *handle, VipsInterpretation space, int bands,
                        uint8_t **pixels, int *width, int *height, char **message) {
    if (!handle || !handle->image || !pixels || !width || !height) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to image pixels");
    }
    *pixels = NULL;
    g_object_ref(handle->image);
    VipsImage *converted = to_8bit(handle->image, space, bands);
    if (!converted) {
        return fail(CVipsShim_DecodeFailed, message,
                    bands == 1 ? "could not convert to grayscale" : "could not convert to sRGB");
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(converted, &size);
    *width = vips_image_get_width(converted);
    *height = vips_image_get_height(converted);
    unref(converted);
    if (!memory) {
        return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    if (size != (size_t)(*width) * (size_t)(*height) * (size_t)bands) {
        g_free(memory);
        return fail(CVipsShim_DecodeFailed, message, "unexpected pixel layout");
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

int CVipsShim_LoadRGB(const char *path, int side, uint8_t *rgb, size_t capacity, char **message) {
    if (!path || side < 1 || !rgb || capacity < (size_t)side * (size_t)side * 3) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to LoadRGB");
    }
    VipsImage *t = NULL;
    VipsImage *next = NULL;
    // thumbnail: shrink-on-load, and "force" gives exactly side x side
    // (crops are square, so nothing is distorted).
    if (vips_thumbnail(path, &t, side, "height", side, "size", VIPS_SIZE_FORCE, NULL) != 0) {
        return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    }
    if (vips_image_get_width(t) != side || vips_image_get_height(t) != side) {
        if (vips_embed(t, &next, 0, 0, side, side, "extend", VIPS_EXTEND_COPY, NULL) != 0) {
            unref(t);
            return fail(CVipsShim_DecodeFailed, message, "could not resize image");
        }
        unref(t);
        t = next;
    }
    t = to_8bit(t, VIPS_INTERPRETATION_sRGB, 3);
    if (!t) return fail(CVipsShim_DecodeFailed, message, "could not convert to sRGB");
    size_t size = 0;
    void *memory = vips_image_write_to_memory(t, &size);
    unref(t);
    if (!memory) return fail(CVipsShim_DecodeFailed, message, "could not decode image");
    if (size != (size_t)side * (size_t)side * 3) {
        g_free(memory);
        return fail(CVipsShim_DecodeFailed, message, "unexpected RGB layout");
    }
    memcpy(rgb, memory, size);
    g_free(memory);
    return CVipsShim_OK;
}

// Digits 0-9 in a 5x7 pixel font, one byte per row, bit 4 the leftmost pixel.
static const uint8_t digit_font[10][7] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
};

enum { label_scale = 2, label_background = 24, label_ink = 255, tile_background = 40 };

// A side x CVipsShim_LabelHeight sRGB strip with `number` drawn at its left.
static VipsImage *label_strip(int side, long number) {
    size_t size = (size_t)side * CVipsShim_LabelHeight * 3;
    uint8_t *pixels = g_malloc(size);
    memset(pixels, label_background, size);
    char text[24];
    g_snprintf(text, sizeof text, "%ld", number < 0 ? 0 : number);
    int x = 3;
    int y = (CVipsShim_LabelHeight - 7 * label_scale) / 2;
    for (const char *c = text; *c && x + 5 * label_scale <= side; c++) {
        const uint8_t *rows = digit_font[*c - '0'];
        for (int row = 0; row < 7 * label_scale; row++) {
            for (int column = 0; column < 5 * label_scale; column++) {
                if (!(rows[row / label_scale] & (0x10 >> (column / label_scale)))) continue;
                memset(pixels + ((size_t)(y + row) * side + x + column) * 3, label_ink, 3);
            }
        }
        x += 6 * label_scale;
    }
    VipsImage *strip = vips_image_new_from_memory_copy(pixels, size, side, CVipsShim_LabelHeight, 3,
                                                       VIPS_FORMAT_UCHAR);
    g_free(pixels);
    if (!strip) return NULL;
    VipsImage *typed = NULL;
    int status = vips_copy(strip, &typed, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    unref(strip);
    return status == 0 ? typed : NULL;
}

int CVipsShim_SheetTile(const char *path, int side, long number, CVipsShim_Image **result,
                        char **message) {
    if (side < 8 || !result) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to SheetTile");
    }
    *result = NULL;
    VipsImage *t = NULL;
    VipsImage *next = NULL;
    if (path) {
        if (vips_thumbnail(path, &t, side, "height", side, NULL) != 0) {
            return fail(CVipsShim_DecodeFailed, message, "could not read image");
        }
        t = to_8bit(t, VIPS_INTERPRETATION_sRGB, 3);
        if (!t) return fail(CVipsShim_DecodeFailed, message, "could not convert image");
    } else {
        if (vips_black(&t, side, side, "bands", 3, NULL) != 0) goto failed;
        if (vips_linear1(t, &next, 1.0, 128.0, "uchar", TRUE, NULL) != 0) goto failed;
        unref(t);
        t = next;
        if (vips_copy(t, &next, "interpretation", VIPS_INTERPRETATION_sRGB, NULL) != 0) goto failed;
        unref(t);
        t = next;
    }
    int width = vips_image_get_width(t);
    int height = vips_image_get_height(t);
    if (width != side || height != side) {
        VipsArrayDouble *background = vips_array_double_newv(3, (double)tile_background,
                                                             (double)tile_background,
                                                             (double)tile_background);
        int status = vips_embed(t, &next, (side - width) / 2, (side - height) / 2, side, side,
                                "extend", VIPS_EXTEND_BACKGROUND, "background", background,
                                NULL);
        vips_area_unref(VIPS_AREA(background));
        if (status != 0) goto failed;
        unref(t);
        t = next;
    }
    VipsImage *strip = label_strip(side, number);
    if (!strip) goto failed;
    int joined = vips_join(t, strip, &next, VIPS_DIRECTION_VERTICAL, NULL);
    unref(strip);
    if (joined != 0) goto failed;
    unref(t);
    t = next;
    // Decode now, so that the file is closed and the tile is a small block of
    // memory, however many tiles a sheet holds.
    VipsImage *memory = vips_image_copy_memory(t);
    unref(t);
    if (!memory) return fail(CVipsShim_DecodeFailed, message, "could not read image");
    CVipsShim_Image *handle = g_new0(CVipsShim_Image, 1);
    handle->image = memory;
    *result = handle;
    return CVipsShim_OK;
failed:
    unref(t);
    return fail(CVipsShim_DecodeFailed, message, "could not make tile");
}

int CVipsShim_SheetSave(CVipsShim_Image *const *tiles, int count, int across, const char *path,
                        char **message) {
    if (!tiles || count < 1 || across < 1 || !path) {
        return fail(CVipsShim_BadArgument, message, "bad arguments to SheetSave");
    }
    VipsImage **images = g_new0(VipsImage *, count);
    for (int i = 0; i < count; i++) {
        if (!tiles[i] || !tiles[i]->image) {
            g_free(images);
            return fail(CVipsShim_BadArgument, message, "missing tile");
        }
        images[i] = tiles[i]->image;
    }
    VipsArrayDouble *background = vips_array_double_newv(1, (double)tile_background);
    VipsImage *sheet = NULL;
    int status = vips_arrayjoin(images, &sheet, count, "across", across, "shim", 2,
                                "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    g_free(images);
    if (status != 0) return fail(CVipsShim_DecodeFailed, message, "could not join tiles");
    // Straight to the file, a strip at a time: the encoded sheet is never
    // held in memory as well as its tiles.
    status = vips_pngsave(sheet, path, "strip", TRUE, "compression", 6, NULL);
    unref(sheet);
    if (status != 0) return fail(CVipsShim_EncodeFailed, message, "could not write sheet");
    return CVipsShim_OK;
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
