// SHA-256 of a photo (the manifest's `sha256`), of bytes in memory or read
// from the file a chunk at a time, through GLib's checksum, which libvips
// already links: no second crypto library.
#include <errno.h>
#include <glib.h>
#include <unistd.h>

#include "CVipsShim.h"

void CVipsShim_SHA256(const void *bytes, size_t length, char hex[65]) {
    gchar *digest = g_compute_checksum_for_data(G_CHECKSUM_SHA256, bytes, length);
    g_strlcpy(hex, digest ? digest : "", 65);
    g_free(digest);
}

int CVipsShim_SHA256File(int fd, char hex[65], int64_t *length, char **message) {
    if (fd < 0 || !hex || !length) {
        if (message) *message = g_strdup("bad arguments to SHA256File");
        return CVipsShim_BadArgument;
    }
    hex[0] = '\0';
    *length = 0;
    enum { chunk = 1 << 20 };
    guchar *buffer = g_malloc(chunk);
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    int status = CVipsShim_OK;
    for (;;) {
        ssize_t got = read(fd, buffer, chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            if (message) *message = g_strdup(g_strerror(errno));
            status = CVipsShim_ReadFailed;
            break;
        }
        if (got == 0) break;
        g_checksum_update(sum, buffer, (gssize)got);
        *length += got;
    }
    if (status == CVipsShim_OK) g_strlcpy(hex, g_checksum_get_string(sum), 65);
    g_checksum_free(sum);
    g_free(buffer);
    return status;
}
