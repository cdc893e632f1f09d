// The pixels a crop's perceptual hash is computed from (see CVipsShim.h);
// the hash itself (a DCT) is Swift's, in PerceptualHash.swift.
#include <string.h>

#include "internal.h"

int CVipsShim_HashPixels(const void *bytes, size_t length, uint8_t pixels[1024], char **message) {
    enum { side = 32 };
    if (!bytes || length == 0 || !pixels) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to HashPixels");
    }
    VipsImage *t = NULL;
    // Shrink-on-load (a 256 px JPEG crop is read at 1/8 by its decoder),
    // then exactly side x side: crops are square, so nothing is distorted.
    if (vips_thumbnail_buffer((void *)bytes, length, &t, side, "height", side, "size",
                              VIPS_SIZE_FORCE, NULL) != 0) {
        return shim_fail(CVipsShim_DecodeFailed, message, "could not decode crop");
    }
    t = shim_to_8bit(t, VIPS_INTERPRETATION_B_W, 1);
    if (!t) return shim_fail(CVipsShim_DecodeFailed, message, "could not make crop gray");
    size_t size = 0;
    void *memory = vips_image_write_to_memory(t, &size);
    int width = vips_image_get_width(t), height = vips_image_get_height(t);
    shim_unref(t);
    if (!memory) return shim_fail(CVipsShim_DecodeFailed, message, "could not decode crop");
    if (width != side || height != side || size != side * side) {
        g_free(memory);
        return shim_fail(CVipsShim_DecodeFailed, message, "unexpected gray layout");
    }
    memcpy(pixels, memory, size);
    g_free(memory);
    return CVipsShim_OK;
}
