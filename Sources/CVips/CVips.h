// Umbrella for libvips; only the C shim (CVipsShim) includes it.
#include <vips/vips.h>
