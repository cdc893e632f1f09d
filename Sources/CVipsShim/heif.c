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
#include <math.h>
#include <string.h>
#include <libheif/heif.h>

#include "internal.h"

// Whether the `meta` box at `meta` (`size` bytes, its header included)
// declares at least one coded-image configuration and says 8-bit 4:2:0 in
// every one.
static int meta_coded_as_420(const uint8_t *meta, size_t size) {
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
        if (memcmp(bytes + at + 4, "meta", 4) == 0) return meta_coded_as_420(bytes + at, (size_t)size);
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
        shim_unref(out);
        return NULL;
    }
    return out;
}

// The primary image decoded into the coded planes, when it is 8-bit 4:2:0
// without alpha, of the upright size the header gave; NULL otherwise.
static struct heif_image *decode_planes(struct heif_image_handle *handle, const CVipsShim_Header *header) {
    if (heif_image_handle_has_alpha_channel(handle) || heif_image_handle_get_luma_bits_per_pixel(handle) != 8 ||
        heif_image_handle_get_chroma_bits_per_pixel(handle) != 8) {
        return NULL;
    }
    // Asked for as coded, libheif hands over the decoder's planes with no
    // conversion. It applies the rotation and mirror itself.
    struct heif_image *decoded = NULL;
    int usable = heif_decode_image(handle, &decoded, heif_colorspace_YCbCr, heif_chroma_420, NULL).code ==
                 heif_error_Ok;
    // Any other size is heifload's to handle.
    usable = usable && heif_image_get_primary_width(decoded) == header->width &&
             heif_image_get_primary_height(decoded) == header->height &&
             heif_image_get_colorspace(decoded) == heif_colorspace_YCbCr &&
             heif_image_get_chroma_format(decoded) == heif_chroma_420 &&
             heif_image_get_bits_per_pixel_range(decoded, heif_channel_Y) == 8 &&
             heif_image_get_bits_per_pixel_range(decoded, heif_channel_Cb) == 8 &&
             heif_image_get_bits_per_pixel_range(decoded, heif_channel_Cr) == 8;
    if (!usable && decoded) {
        heif_image_release(decoded);
        decoded = NULL;
    }
    return decoded;
}

int shim_load_heif_planes(const void *bytes, size_t length, const CVipsShim_Header *header, VipsImage **out) {
    *out = NULL;
    if (!coded_as_420(bytes, length)) return 0;
    struct heif_context *context = heif_context_alloc();
    if (!context) return 0;
    struct heif_image_handle *handle = NULL;
    struct heif_image *decoded = NULL;
    struct heif_color_profile_nclx *nclx = NULL;
    if (heif_context_read_from_memory_without_copy(context, bytes, length, NULL).code != heif_error_Ok) goto finish;
    if (heif_context_get_primary_image_handle(context, &handle).code != heif_error_Ok) goto finish;
    decoded = decode_planes(handle, header);
    if (!decoded) goto finish;
    // The colour description libheif's own RGB conversion (heifload's
    // route) uses: the decoded image's, else BT.601 full range. (libheif
    // 1.15 does not apply the file's `colr` box here: its RGB came out the
    // same for files that declared BT.709 or limited range.)
    if (heif_image_get_nclx_color_profile(decoded, &nclx).code != heif_error_Ok) nclx = NULL;
    if (nclx && (nclx->matrix_coefficients == 0 || nclx->matrix_coefficients >= 11)) goto finish;
    *out = planes_as_rgb(decoded, header->width, header->height, ycbcr_matrix(nclx));
    decoded = NULL;  // the image owns the planes now, or they are gone
finish:
    if (!*out) vips_error_clear();
    if (nclx) heif_nclx_color_profile_free(nclx);
    if (decoded) heif_image_release(decoded);
    if (handle) heif_image_handle_release(handle);
    heif_context_free(context);
    return *out != NULL;
}

// Adds the name of each blob field (EXIF, XMP, ICC profile, heif-*) to `a`.
static void *blob_name(VipsImage *image, const char *name, GValue *value, void *a) {
    (void)image;
    if (G_VALUE_TYPE(value) == VIPS_TYPE_BLOB) g_ptr_array_add(a, g_strdup(name));
    return NULL;
}

VipsImage *shim_heifload_unlent(VipsImage *loaded) {
    VipsImage *copy = NULL;
    int failed = vips_copy(loaded, &copy, NULL);
    if (!failed) {
        GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
        vips_image_map(loaded, blob_name, names);
        for (guint i = 0; i < names->len; i++) vips_image_remove(copy, g_ptr_array_index(names, i));
        g_ptr_array_free(names, TRUE);
    }
    shim_unref(loaded);
    return failed ? NULL : copy;
}
