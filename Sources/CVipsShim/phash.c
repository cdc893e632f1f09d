// The pixels a crop's perceptual hash is computed from (see CVipsShim.h).
#include "CVipsShim.h"

#include <string.h>
#include <vips/vips.h>

// A fixed message: a crop facecrop encoded itself always decodes, and
// libvips' error text is one buffer for the whole process, so it is cleared
// rather than read here.
static int phash_fail(int status, char **message, const char *text) {
    if (message) *message = g_strdup(text);
    vips_error_clear();
    return status;
}

int CVipsShim_HashPixels(const void *bytes, size_t length, uint8_t pixels[1024], char **message) {
    enum { side = 32 };
    if (!bytes || length == 0 || !pixels) {
        return phash_fail(CVipsShim_BadArgument, message, "bad arguments to HashPixels");
    }
    VipsImage *thumb = NULL;
    // Shrink-on-load (a 256 px JPEG crop is read at 1/8 by its decoder), then
    // exactly side x side: crops are square, so nothing is distorted.
    if (vips_thumbnail_buffer((void *)bytes, length, &thumb, side, "height", side, "size",
                              VIPS_SIZE_FORCE, NULL) != 0) {
        return phash_fail(CVipsShim_DecodeFailed, message, "could not decode crop");
    }
    VipsImage *gray = NULL;
    int status = vips_colourspace(thumb, &gray, VIPS_INTERPRETATION_B_W, NULL);
    g_object_unref(thumb);
    if (status != 0) return phash_fail(CVipsShim_DecodeFailed, message, "could not make crop gray");
    VipsImage *bytes8 = NULL;
    status = vips_cast_uchar(gray, &bytes8, NULL);
    g_object_unref(gray);
    if (status != 0) return phash_fail(CVipsShim_DecodeFailed, message, "could not make crop 8-bit");
    VipsImage *band = bytes8;
    if (vips_image_get_bands(bytes8) > 1) {
        status = vips_extract_band(bytes8, &band, 0, NULL);
        g_object_unref(bytes8);
        if (status != 0) return phash_fail(CVipsShim_DecodeFailed, message, "could not make crop gray");
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(band, &size);
    int width = vips_image_get_width(band), height = vips_image_get_height(band);
    g_object_unref(band);
    if (!memory) return phash_fail(CVipsShim_DecodeFailed, message, "could not decode crop");
    if (width != side || height != side || size != side * side) {
        g_free(memory);
        return phash_fail(CVipsShim_DecodeFailed, message, "unexpected gray layout");
    }
    memcpy(pixels, memory, size);
    g_free(memory);
    return CVipsShim_OK;
}
