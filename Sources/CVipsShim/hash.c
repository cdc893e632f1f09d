// SHA-256 of a photo's bytes (the manifest's `sha256`), through GLib's
// checksum, which libvips already links: no second crypto library.
#include <glib.h>

#include "CVipsShim.h"

void CVipsShim_SHA256(const void *bytes, size_t length, char hex[65]) {
    gchar *digest = g_compute_checksum_for_data(G_CHECKSUM_SHA256, bytes, length);
    g_strlcpy(hex, digest ? digest : "", 65);
    g_free(digest);
}
