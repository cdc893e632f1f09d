// CVipsShim: a pure-C wrapper over the libvips calls facecrop needs.
//
// It exists because Swift cannot call libvips' variadic functions
// (vips_thumbnail_buffer, vips_embed, vips_jpegsave_buffer, ...) nor its macros
// (VIPS_INIT). This header includes no libvips or glib header: images cross the
// boundary as an opaque handle, errors as a status plus a message the caller
// owns and frees with CVipsShim_Free. Each function's comment ends with
// the statuses it returns besides CVipsShim_OK.
#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CVipsShim_OK = 0,
    /// libvips could not read or decode the input (message says why); also
    /// libvips failing to start.
    CVipsShim_DecodeFailed = 1,
    /// An argument was out of range.
    CVipsShim_BadArgument = 2,
    /// Making the output from decoded pixels failed: cutting, resizing or
    /// encoding a crop, laying out a sheet tile, joining or writing a sheet.
    CVipsShim_EncodeFailed = 3,
    /// The image has more pixels than the caller allows. Returned by no
    /// function: the shim takes no pixel limit; the caller compares
    /// CVipsShim_ReadHeader's size with its own before decoding.
    CVipsShim_TooLarge = 4,
    /// Reading the file failed (the message is the system's reason).
    CVipsShim_ReadFailed = 5,
} CVipsShim_Status;

/// An image (a VipsImage) owned by exactly one caller; free with CVipsShim_ImageFree.
typedef struct CVipsShim_Image CVipsShim_Image;

/// Start libvips once per process. Sets its worker threads to `concurrency` and
/// caps its operation cache at `cache_max` operations (0 turns it off).
/// Returns CVipsShim_DecodeFailed when libvips cannot start.
int CVipsShim_Init(const char *argv0, int concurrency, int cache_max, char **message);

/// Sets glibc's malloc for a process that decodes large images one after
/// another: a fixed mmap threshold (`mmap_threshold` bytes) so large buffers
/// go back to the system when freed, and at most `arenas` arenas. (malloc.h
/// is not part of Swift's Glibc module.)
void CVipsShim_TuneMalloc(int mmap_threshold, int arenas);

/// Gives the free memory malloc holds back to the system (malloc_trim).
void CVipsShim_TrimMemory(void);

/// Frees what libvips keeps for the calling thread between pipelines (its
/// cache of pixel buffers), for a thread that is done with a photo.
void CVipsShim_ThreadDone(void);

/// Facts from a photo's header, read without decoding the pixels.
typedef struct {
    /// Stored size, before the EXIF orientation is applied.
    int stored_width;
    int stored_height;
    /// Upright size, after the EXIF orientation is applied.
    int width;
    int height;
    /// EXIF orientation 1...8 (1 when absent or out of range).
    int orientation;
    int bands;
    /// Bytes of one band of one pixel as decoded: 1 for 8-bit, 2 for 16-bit.
    int sample_bytes;
    /// The libvips loader, e.g. "jpegload_buffer" or "jpegload_source".
    char loader[48];
    /// 1 when the decoder itself reduces while decoding (JPEG, WebP): their
    /// detection and region decodes are at that reduction. 0 for the rest,
    /// which are decoded at full size (PNG and TIFF shrunk on the way).
    int shrinks_on_load;
    /// 1 when read by CVipsShim_ReadHeaderFile and CVipsShim_LoadScaledFile
    /// and CVipsShim_LoadRegionFile decode the photo in bounded memory, from
    /// the file: JPEG, WebP, and PNG and TIFF stored upright (orientation 1),
    /// any bit depth. 0 otherwise: the photo is decoded whole (read its bytes
    /// and use CVipsShim_LoadScaled).
    int streams;
    /// EXIF DateTimeOriginal and OffsetTimeOriginal as libvips reads them
    /// ("2019:07:04 12:30:05 (2019:07:04 12:30:05, ASCII, 20 components,
    /// 20 bytes)"), cut to fit; "" when absent. Read with the header, so
    /// the capture time costs no extra decode.
    char date_time_original[64];
    char offset_time_original[32];
} CVipsShim_Header;

/// Returns CVipsShim_BadArgument for no bytes, CVipsShim_DecodeFailed for
/// bytes libvips cannot read as an image.
int CVipsShim_ReadHeader(const void *bytes, size_t length, CVipsShim_Header *header,
                         char **message);

/// Decodes `bytes` (kept alive by the caller for the life of the image), whose
/// header is `header`, upright and fitting in `max_width` x `max_height` (never
/// enlarged). JPEG and WebP decode reduced where that keeps at least
/// `min_scale` of the upright size (JPEG by 1/2, 1/4 or 1/8), the rest of the
/// way is a resize. With `min_scale` >= 1 the photo is decoded whole into
/// memory at once, with one copy.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed.
int CVipsShim_LoadScaled(const void *bytes, size_t length, const CVipsShim_Header *header,
                         double min_scale, int max_width, int max_height,
                         CVipsShim_Image **image, char **message);

/// Where a region decode sits in the decode of the whole photo.
typedef struct {
    /// Upright size of the whole photo at the scale decoded.
    int decode_width;
    int decode_height;
    /// The region's upright top-left corner in those pixels.
    int left;
    int top;
} CVipsShim_Region;

/// Decodes the part of a JPEG or WebP photo that covers `left`, `top`,
/// `width` x `height` (upright pixels of the full-size photo), at the
/// decoder's largest reduction that keeps at least `min_scale`: the file is
/// read top to bottom, in its stored orientation, only as far as the region
/// reaches, only the region is kept, and it is turned upright. Other photos
/// (other formats, CMYK, 16-bit, gray) are decoded whole as
/// CVipsShim_LoadScaled does, and `where` then says the whole photo.
/// Returns CVipsShim_BadArgument (also for a region outside the photo),
/// CVipsShim_DecodeFailed.
int CVipsShim_LoadRegion(const void *bytes, size_t length, const CVipsShim_Header *header,
                         double min_scale, int left, int top, int width, int height,
                         CVipsShim_Image **image, CVipsShim_Region *where, char **message);

/// Decodes all of `bytes` into memory now, upright and at the size given, so
/// that many regions can be cut from it without decoding again.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed.
int CVipsShim_ImageMaterialize(CVipsShim_Image *image, char **message);

/// A smaller copy of an (upright, usually materialized) image that fits in
/// `max_width` x `max_height`, never enlarged. Free with CVipsShim_ImageFree.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed.
int CVipsShim_ImageFitting(CVipsShim_Image *image, int max_width, int max_height,
                           CVipsShim_Image **result, char **message);

/// An sRGB image of `width` x `height` packed 8-bit RGB pixels (3 bytes a
/// pixel, rows packed), copied: the caller keeps `rgb`. Free with
/// CVipsShim_ImageFree. Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed.
int CVipsShim_ImageFromRGB(const uint8_t *rgb, int width, int height, CVipsShim_Image **image, char **message);

void CVipsShim_ImageSize(const CVipsShim_Image *image, int *width, int *height);

/// 8-bit grayscale pixels of the image, alpha flattened onto black, rows packed
/// (stride == width). Free `*pixels` with CVipsShim_Free.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed (a lazy image is
/// decoded here).
int CVipsShim_ImageGray(CVipsShim_Image *image, uint8_t **pixels, int *width, int *height,
                        char **message);

/// 8-bit sRGB pixels (3 bytes a pixel: R, G, B), alpha flattened onto black,
/// rows packed (stride == 3 * width). Free `*pixels` with CVipsShim_Free.
/// Returns as CVipsShim_ImageGray.
int CVipsShim_ImageRGB(CVipsShim_Image *image, uint8_t **pixels, int *width, int *height,
                       char **message);

typedef enum {
    CVipsShim_PadEdge = 0,
    CVipsShim_PadBlack = 1,
    /// The image mirrored at its edge (--pad reflect).
    CVipsShim_PadReflect = 2,
} CVipsShim_Pad;

typedef enum {
    CVipsShim_JPEG = 0,
    CVipsShim_PNG = 1,
    CVipsShim_WebP = 2,
} CVipsShim_Format;

/// A square region of an image, in that image's pixels. It may reach outside
/// the image; the outside is filled as `pad` says.
typedef struct {
    int left;
    int top;
    int side;
    CVipsShim_Pad pad;
    /// Output side in pixels.
    int output_side;
    CVipsShim_Format format;
    /// 1...100 for JPEG and WebP; ignored for PNG.
    int quality;
    /// Degrees to turn the region anticlockwise about its centre before
    /// cutting (0: none); the corners are filled like `pad`.
    double angle;
} CVipsShim_CropSpec;

/// Cuts, resizes and encodes one crop as 8-bit sRGB (alpha flattened onto
/// black), stripped of metadata so that the bytes depend only on the pixels.
/// Free `*bytes` with CVipsShim_Free.
/// Returns CVipsShim_BadArgument (also for an unknown format),
/// CVipsShim_EncodeFailed.
int CVipsShim_CropEncode(CVipsShim_Image *image, const CVipsShim_CropSpec *spec,
                         void **bytes, size_t *length, char **message);

/// Loads the image file at `path` (a crop), resizes it to exactly `side` x
/// `side` and writes its 8-bit sRGB pixels (alpha flattened onto black, rows
/// packed, 3 bytes a pixel) into the caller's `rgb`, which holds `capacity`
/// bytes (at least side * side * 3). Allocates nothing the caller must free
/// except `*message` on failure.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed.
int CVipsShim_LoadRGB(const char *path, int side, uint8_t *rgb, size_t capacity, char **message);

/// Height in pixels of the label strip CVipsShim_SheetTile puts under each tile.
#define CVipsShim_LabelHeight 18

/// One contact-sheet tile, decoded into memory (the file is closed again): the
/// image at `path` shrunk (or enlarged) to fit `side` x `side`, centred on a
/// dark square, with a strip of CVipsShim_LabelHeight pixels underneath that
/// shows `number` in a built-in 5x7 pixel digit font (no font files needed,
/// so the sheet's bytes are the same on every machine). With `path` NULL the
/// square is a plain mid-grey placeholder.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed (the file cannot be
/// read), CVipsShim_EncodeFailed (the tile cannot be laid out).
int CVipsShim_SheetTile(const char *path, int side, long number, CVipsShim_Image **tile,
                        char **message);

/// CVipsShim_SheetTile with `label` drawn instead of a number: digits, the
/// capitals F L R U D, '-', '.' and ' ' (any other character is left
/// blank), as many as fit the tile's width (10 at side 128).
int CVipsShim_SheetTileLabel(const char *path, int side, const char *label, CVipsShim_Image **tile,
                             char **message);

/// Joins `count` tiles into a grid `across` tiles wide, 2 pixels apart, and
/// writes it as a PNG file at `path`.
/// Returns CVipsShim_BadArgument, CVipsShim_EncodeFailed (also when the file
/// cannot be written; the message says why).
int CVipsShim_SheetSave(CVipsShim_Image *const *tiles, int count, int across, const char *path,
                        char **message);

void CVipsShim_ImageFree(CVipsShim_Image *image);

/// SHA-256 of everything read from the open file `fd` from where it stands
/// to its end, read a chunk at a time (the file is never whole in memory),
/// as 64 lowercase hex digits and a NUL; `*length` is the bytes read.
/// Returns CVipsShim_BadArgument, CVipsShim_ReadFailed.
int CVipsShim_SHA256File(int fd, char hex[65], int64_t *length, char **message);

/// As CVipsShim_ReadHeader, for the file at `path` (taken as it is: no
/// libvips "[options]" in the name), and sets `header->streams`.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed.
int CVipsShim_ReadHeaderFile(const char *path, CVipsShim_Header *header, char **message);

/// As CVipsShim_ReadHeaderFile, and hands over the photo's embedded XMP
/// packet (libvips' "xmp-data", read with the header: JPEG, PNG, TIFF,
/// WebP, HEIC and AVIF) as `*xmp`, `*xmp_length` bytes and a NUL; NULL and 0
/// when it has none. Free `*xmp` with CVipsShim_Free.
int CVipsShim_ReadHeaderFileXMP(const char *path, CVipsShim_Header *header, char **xmp, size_t *xmp_length,
                                char **message);

/// As CVipsShim_LoadScaled with `min_scale` < 1, for the file at `path`
/// whose header (from CVipsShim_ReadHeaderFile) has `streams` set. JPEG and
/// WebP shrink while decoding as there; PNG and TIFF are read top to bottom
/// and shrunk on the way (vips_thumbnail's resize of a sequential image),
/// so the whole photo is never in memory. 16-bit photos keep their depth
/// here; the 8-bit conversions (pixels, crops) are libvips' colourspace
/// (RGB16 -> sRGB, GREY16 -> B_W), as for every other decode. The image
/// reads the file when it is used: keep the file in place until freed.
/// Returns CVipsShim_BadArgument (also for a header without `streams`),
/// CVipsShim_DecodeFailed.
int CVipsShim_LoadScaledFile(const char *path, const CVipsShim_Header *header, double min_scale,
                             int max_width, int max_height, CVipsShim_Image **image, char **message);

/// As CVipsShim_LoadRegion, for the file at `path` whose header has
/// `streams` set: JPEG and WebP as there; PNG and TIFF at full size, read
/// top to bottom only as far as the region reaches, only the region kept
/// (any bit depth). A JPEG or WebP that is not plain 8-bit sRGB is decoded
/// as CVipsShim_LoadScaledFile does, and `where` then says the whole photo.
/// Returns CVipsShim_BadArgument (also for a region outside the photo),
/// CVipsShim_DecodeFailed.
int CVipsShim_LoadRegionFile(const char *path, const CVipsShim_Header *header, double min_scale, int left,
                             int top, int width, int height, CVipsShim_Image **image,
                             CVipsShim_Region *where, char **message);

/// SHA-256 of `bytes` as 64 lowercase hex digits and a terminating NUL.
void CVipsShim_SHA256(const void *bytes, size_t length, char hex[65]);

/// Empties libvips' error text. It is one buffer for the whole process, so
/// the caller must make sure no other libvips call runs meanwhile.
void CVipsShim_ClearErrors(void);

/// Frees memory the shim handed out (pixels, encoded bytes, messages).
void CVipsShim_Free(void *pointer);

/// An aligned face crop: the image seen through an affine matrix.
typedef struct {
    /// Image pixels -> crop pixels: x' = m[0] x + m[1] y + m[2],
    /// y' = m[3] x + m[4] y + m[5], in pixels of the image handed over,
    /// pixel centres at whole numbers (the top-left pixel's centre is (0, 0),
    /// as in OpenCV's warpAffine). Must be invertible.
    double matrix[6];
    /// Output side in pixels.
    int output_side;
    /// Fill where the crop reaches past the image: CVipsShim_PadEdge,
    /// CVipsShim_PadBlack or CVipsShim_PadReflect.
    CVipsShim_Pad pad;
    /// With CVipsShim_PadReflect: blur the mirrored part and fade it towards
    /// the image's median colour, as NVlabs' FFHQ recipe does (approximately:
    /// see warp.c).
    int blur_padding;
    CVipsShim_Format format;
    /// 1...100 for JPEG and WebP; ignored for PNG.
    int quality;
} CVipsShim_WarpSpec;

/// Warps, encodes and hands back one crop as 8-bit sRGB (alpha flattened
/// onto black), stripped of metadata, like CVipsShim_CropEncode: the caller
/// writes the bytes (atomically) and frees them with CVipsShim_Free. A crop
/// that shrinks the image is resized with Lanczos first, then resampled
/// bicubic.
int CVipsShim_WarpEncode(CVipsShim_Image *image, const CVipsShim_WarpSpec *spec, void **bytes, size_t *length,
                         char **message);

/// The same crop as CVipsShim_WarpEncode makes, as 8-bit sRGB pixels (rows
/// packed, 3 bytes a pixel) in the caller's `rgb` of `capacity` bytes (at
/// least output_side * output_side * 3); `format` and `quality` are ignored.
int CVipsShim_WarpRGB(CVipsShim_Image *image, const CVipsShim_WarpSpec *spec, uint8_t *rgb, size_t capacity,
                      char **message);

/// The pixels a crop's perceptual hash is made from: the encoded image in
/// `bytes` (a crop: JPEG, PNG or WebP) decoded, shrunk to exactly 32 x 32 and
/// made 8-bit grayscale, rows packed, into the caller's `pixels`.
/// Returns CVipsShim_BadArgument, CVipsShim_DecodeFailed.
int CVipsShim_HashPixels(const void *bytes, size_t length, uint8_t pixels[1024], char **message);

#ifdef __cplusplus
}
#endif

#endif
