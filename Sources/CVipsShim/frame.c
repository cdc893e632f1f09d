// A video frame handed over as packed 8-bit RGB (ffmpeg's rgb24 on a pipe),
// made into an image the crop, warp and pixel functions take like any photo.
#include "internal.h"

#include <limits.h>

int CVipsShim_ImageFromRGB(const uint8_t *rgb, int width, int height, CVipsShim_Image **image, char **message) {
    if (!rgb || width < 1 || height < 1 || !image || (size_t)width > SIZE_MAX / 3 / (size_t)height) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to ImageFromRGB");
    }
    *image = NULL;
    // A copy: the caller reuses its buffer for the next frame.
    VipsImage *out = vips_image_new_from_memory_copy(rgb, (size_t)width * (size_t)height * 3, width, height, 3,
                                                     VIPS_FORMAT_UCHAR);
    if (!out) return shim_fail(CVipsShim_DecodeFailed, message, "could not make an image of the frame");
    out->Type = VIPS_INTERPRETATION_sRGB;
    *image = shim_handle(out);
    return CVipsShim_OK;
}
