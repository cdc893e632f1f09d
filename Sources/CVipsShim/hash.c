// SHA-256 of a photo (the manifest's `sha256`), of bytes in memory or read
// from the file a chunk at a time, through OpenSSL's libcrypto (EVP), which
// libvips already loads (through libcurl and libarchive): it uses the CPU's
// SHA instructions where it has them. GLib's checksum, used before, is plain
// C: ~130 MB/s against ~560 MB/s here, on this machine, loaded (2.2 s
// against 0.5 s for a 288 MB 48 MP 16-bit TIFF). The digests are the same.
#include <errno.h>
#include <glib.h>
#include <openssl/evp.h>
#include <unistd.h>

#include "CVipsShim.h"

static void to_hex(const unsigned char digest[32], char hex[65]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[64] = '\0';
}

void CVipsShim_SHA256(const void *bytes, size_t length, char hex[65]) {
    unsigned char digest[32];
    if (EVP_Digest(bytes ? bytes : "", bytes ? length : 0, digest, NULL, EVP_sha256(), NULL) == 1) {
        to_hex(digest, hex);
    } else {
        hex[0] = '\0';
    }
}

// Hashes what `fd` has left into `hex`; `*length` gets the bytes read.
static int hash_file(EVP_MD_CTX *sum, int fd, guchar *buffer, size_t chunk, char hex[65], int64_t *length,
                     char **message) {
    if (EVP_DigestInit_ex(sum, EVP_sha256(), NULL) != 1) {
        if (message) *message = g_strdup("could not start SHA-256");
        return CVipsShim_ReadFailed;
    }
    for (;;) {
        ssize_t got = read(fd, buffer, chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            if (message) *message = g_strdup(g_strerror(errno));
            return CVipsShim_ReadFailed;
        }
        if (got == 0) break;
        if (EVP_DigestUpdate(sum, buffer, (size_t)got) != 1) {
            if (message) *message = g_strdup("SHA-256 failed");
            return CVipsShim_ReadFailed;
        }
        *length += got;
    }
    unsigned char digest[32];
    if (EVP_DigestFinal_ex(sum, digest, NULL) != 1) {
        if (message) *message = g_strdup("SHA-256 failed");
        return CVipsShim_ReadFailed;
    }
    to_hex(digest, hex);
    return CVipsShim_OK;
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
    EVP_MD_CTX *sum = EVP_MD_CTX_new();
    int status = sum ? hash_file(sum, fd, buffer, chunk, hex, length, message) : CVipsShim_ReadFailed;
    if (!sum && message) *message = g_strdup("could not start SHA-256");
    EVP_MD_CTX_free(sum);
    g_free(buffer);
    return status;
}
