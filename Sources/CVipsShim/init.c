// Process-wide set-up and the shim's common plumbing: starting libvips,
// malloc tuning and trimming, libvips' error text turned into the caller's
// message, and freeing what the shim hands out.
#include <malloc.h>
#include <string.h>

#include "internal.h"

int shim_fail(int status, char **message, const char *fallback) {
    if (message) {
        const char *text = vips_error_buffer();
        if (text == NULL || text[0] == '\0') {
            text = fallback;
        }
        char *copy = g_strdup(text);
        g_strstrip(copy);
        // libvips ends each line with "\n"; keep one readable line, each
        // distinct line once.
        gchar **lines = g_strsplit(copy, "\n", -1);
        GString *joined = g_string_new(NULL);
        for (gchar **line = lines; *line; line++) {
            g_strstrip(*line);
            if (**line == '\0' || strstr(joined->str, *line)) continue;
            if (joined->len) g_string_append(joined, "; ");
            g_string_append(joined, *line);
        }
        g_strfreev(lines);
        g_free(copy);
        *message = g_string_free(joined, FALSE);
    }
    vips_error_clear();
    return status;
}

CVipsShim_Image *shim_handle(VipsImage *image) {
    CVipsShim_Image *handle = g_new0(CVipsShim_Image, 1);
    handle->image = image;
    return handle;
}

// libvips reports damaged-but-readable data as GLib warnings on stderr, one
// per scanline; facecrop reports problems per photo instead.
static void drop_warning(const gchar *domain, GLogLevelFlags level, const gchar *text,
                         gpointer data) {
    (void)domain;
    (void)level;
    (void)text;
    (void)data;
}

int CVipsShim_Init(const char *argv0, int concurrency, int cache_max, char **message) {
    if (VIPS_INIT(argv0 ? argv0 : "facecrop") != 0) {
        return shim_fail(CVipsShim_DecodeFailed, message, "libvips failed to start");
    }
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
                      drop_warning, NULL);
    vips_concurrency_set(concurrency < 1 ? 1 : concurrency);
    vips_cache_set_max(cache_max < 0 ? 0 : cache_max);
    return CVipsShim_OK;
}

void CVipsShim_TrimMemory(void) {
    malloc_trim(0);
}

void CVipsShim_ThreadDone(void) {
    vips_thread_shutdown();
}

void CVipsShim_TuneMalloc(int mmap_threshold, int arenas) {
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    mallopt(M_ARENA_MAX, arenas);
}

void CVipsShim_ImageFree(CVipsShim_Image *handle) {
    if (!handle) return;
    shim_unref(handle->image);
    g_free(handle);
}

void CVipsShim_ClearErrors(void) {
    vips_error_clear();
}

void CVipsShim_Free(void *pointer) {
    g_free(pointer);
}
