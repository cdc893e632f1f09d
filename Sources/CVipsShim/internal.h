// What the shim's source files share and the public header must not show:
// the handle's layout (a VipsImage), the error and reference helpers, and the
// calls one file makes into another. Includes libvips, so it stays out of
// include/ (Swift sees only include/CVipsShim.h).
#ifndef CVIPSSHIM_INTERNAL_H
#define CVIPSSHIM_INTERNAL_H

#include <stddef.h>
#include <vips/vips.h>

#include "CVipsShim.h"

// Shared between the shim's files; not exported from a shared library the
// shim is linked into.
#define SHIM_INTERNAL __attribute__((visibility("hidden")))

struct CVipsShim_Image {
    VipsImage *image;
};

/// Returns `status` and hands libvips' (process-wide) error text, or
/// `fallback` when it has none, to the caller as `*message` (one line, each
/// distinct line of libvips' text once); empties the error text. (init.c)
SHIM_INTERNAL int shim_fail(int status, char **message, const char *fallback);

/// A new handle that owns `image` (takes its reference). (init.c)
SHIM_INTERNAL CVipsShim_Image *shim_handle(VipsImage *image);

static inline void shim_unref(VipsImage *image) {
    if (image) g_object_unref(image);
}

/// Flattens alpha onto black and converts to `space` (B_W or sRGB) with
/// `bands` bands, 8 bits each. Takes ownership of `in`; NULL on failure
/// (with libvips' error text set). (pixels.c)
SHIM_INTERNAL VipsImage *shim_to_8bit(VipsImage *in, VipsInterpretation space, int bands);

/// A whole HEIF/AVIF photo as a lazy sRGB image over libheif's 4:2:0 planes:
/// 1 with `*out` set, or 0 when this route does not apply or fails (the
/// caller then decodes through heifload, which reports any error). (heif.c)
SHIM_INTERNAL int shim_load_heif_planes(const void *bytes, size_t length, const CVipsShim_Header *header,
                                        VipsImage **out);

/// `loaded` (from heifload) as a copy without its blob fields (EXIF, XMP,
/// ICC profile). libvips 8.14's heifload sets them as blobs that point into
/// memory its own internal image owns: once a decode is copied to memory
/// and the loader's images are freed, every image made from it keeps fields
/// that point at freed memory, and webpsave reads `exif-data` again even
/// when stripping (vips__exif_update: a heap-use-after-free for every
/// iPhone photo). Nothing here needs them: capture time is read from the
/// header, and crops are saved with strip (8.14's webpsave still writes an
/// EXIF chunk, which it then builds from the parsed fields). Removed, not
/// copied: setting `exif-data` again makes libvips parse it again and bring
/// back the EXIF orientation heifload took out (libheif has already turned
/// the pixels), so a photo would be turned twice. The parsed fields (strings, owned)
/// stay. Takes `loaded`; NULL on failure (with libvips' error text set).
/// (heif.c)
SHIM_INTERNAL VipsImage *shim_heifload_unlent(VipsImage *loaded);

/// Encodes `t` as `format` (quality 1...100 for JPEG and WebP), stripped of
/// metadata, into bytes the caller frees with CVipsShim_Free. Takes `t`.
/// (crop.c)
SHIM_INTERNAL int shim_encode(VipsImage *t, CVipsShim_Format format, int quality, void **bytes, size_t *length,
                              char **message);

/// The header facts of a loaded (lazy) image. (decode.c)
SHIM_INTERNAL void shim_read_header(VipsImage *image, CVipsShim_Header *header);
SHIM_INTERNAL void shim_copy_string(VipsImage *image, const char *name, char *out, size_t size);

/// The load options for a decode keeping at least `min_scale` of the
/// upright size, `fit_scale` being the scale that fits the box: JPEG's
/// shrink and WebP's scale while decoding, or a sequential whole decode
/// when `min_scale` >= 1. (decode.c)
SHIM_INTERNAL void shim_load_options(const CVipsShim_Header *header, double min_scale, double fit_scale,
                                     char *options, size_t size);

/// `lazy` decoded into memory now (one copy), then turned upright. Takes
/// `lazy`. (decode.c)
SHIM_INTERNAL int shim_upright_in_memory(VipsImage *lazy, VipsImage **out, char **message);

/// For a region decode that fell back to the whole photo: on success,
/// `*where` says the whole of `decoded`. Returns `status`. (decode.c)
SHIM_INTERNAL int shim_whole_region(int status, const CVipsShim_Image *decoded, CVipsShim_Region *where);

/// `loaded` turned upright and fitted in the box, lazily. Takes `loaded`. (decode.c)
SHIM_INTERNAL int shim_upright_fitted(VipsImage *loaded, int max_width, int max_height, VipsImage **out,
                                      char **message);

/// `image` when it is plain 8-bit, 3-band sRGB (what a region decode of a
/// JPEG or WebP handles); otherwise unrefs it and returns NULL. (decode.c)
SHIM_INTERNAL VipsImage *shim_plain_srgb(VipsImage *image);

/// The part of the sequentially opened `loaded` that covers `want` (upright
/// pixels of the full-size photo whose header is `header`), a pixel wider on
/// every side, read top to bottom only as far as it reaches, upright, in
/// memory; where it lies in `*where`. Takes `loaded`. (decode.c)
SHIM_INTERNAL int shim_decode_region(VipsImage *loaded, const CVipsShim_Header *header, VipsRect want,
                                     VipsImage **out, CVipsShim_Region *where, char **message);

#endif
