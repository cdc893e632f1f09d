// The contact sheet: one tile per crop (shrunk onto a dark square, its
// number drawn underneath in a built-in digit font, so the sheet's bytes are
// the same on every machine), and the tiles joined into one PNG file.
#include <string.h>

#include "internal.h"

// Digits 0-9 in a 5x7 pixel font, one byte per row, bit 4 the leftmost pixel.
static const uint8_t digit_font[10][7] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
};

// The few other characters a labelled tile uses (CVipsShim_SheetTileLabel):
// the pose bins' initials, '-' for a value not known, '.' and ' '.
static const struct {
    char c;
    uint8_t rows[7];
} other_glyphs[] = {
    {'F', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}}, {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}},
    {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}}, {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
    {'D', {0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E}}, {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
};

// The 5x7 rows of `c`; NULL for a character the font does not have (left blank).
static const uint8_t *glyph(char c) {
    if (c >= '0' && c <= '9') return digit_font[c - '0'];
    for (size_t i = 0; i < sizeof other_glyphs / sizeof other_glyphs[0]; i++) {
        if (other_glyphs[i].c == c) return other_glyphs[i].rows;
    }
    return NULL;
}

enum { label_scale = 2, label_background = 24, label_ink = 255, tile_background = 40 };

// Gives 3-band uchar pixels the sRGB interpretation. Takes `t`; NULL on failure.
static VipsImage *as_srgb(VipsImage *t) {
    VipsImage *typed = NULL;
    int status = vips_copy(t, &typed, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    shim_unref(t);
    return status == 0 ? typed : NULL;
}

// A side x CVipsShim_LabelHeight sRGB strip with `text` drawn at its left.
static VipsImage *label_strip(int side, const char *text) {
    size_t size = (size_t)side * CVipsShim_LabelHeight * 3;
    uint8_t *pixels = g_malloc(size);
    memset(pixels, label_background, size);
    int x = 3;
    int y = (CVipsShim_LabelHeight - 7 * label_scale) / 2;
    for (const char *c = text; *c && x + 5 * label_scale <= side; c++) {
        const uint8_t *rows = glyph(*c);
        for (int row = 0; rows && row < 7 * label_scale; row++) {
            for (int column = 0; column < 5 * label_scale; column++) {
                if (!(rows[row / label_scale] & (0x10 >> (column / label_scale)))) continue;
                memset(pixels + ((size_t)(y + row) * side + x + column) * 3, label_ink, 3);
            }
        }
        x += 6 * label_scale;
    }
    VipsImage *strip = vips_image_new_from_memory_copy(pixels, size, side, CVipsShim_LabelHeight, 3,
                                                       VIPS_FORMAT_UCHAR);
    g_free(pixels);
    return strip ? as_srgb(strip) : NULL;
}

// A plain mid-grey side x side sRGB square; NULL on failure.
static VipsImage *placeholder(int side) {
    VipsImage *t = NULL;
    VipsImage *next = NULL;
    if (vips_black(&t, side, side, "bands", 3, NULL) != 0) return NULL;
    int failed = vips_linear1(t, &next, 1.0, 128.0, "uchar", TRUE, NULL);
    shim_unref(t);
    return failed ? NULL : as_srgb(next);
}

// `t` centred on a side x side dark square, with the label strip for
// `label` underneath. Takes `t`; NULL on failure.
static VipsImage *framed(VipsImage *t, int side, const char *label) {
    VipsImage *next = NULL;
    int width = vips_image_get_width(t);
    int height = vips_image_get_height(t);
    if (width != side || height != side) {
        VipsArrayDouble *background = vips_array_double_newv(3, (double)tile_background,
                                                             (double)tile_background,
                                                             (double)tile_background);
        int status = vips_embed(t, &next, (side - width) / 2, (side - height) / 2, side, side,
                                "extend", VIPS_EXTEND_BACKGROUND, "background", background,
                                NULL);
        vips_area_unref(VIPS_AREA(background));
        shim_unref(t);
        if (status != 0) return NULL;
        t = next;
    }
    VipsImage *strip = label_strip(side, label);
    int failed = !strip || vips_join(t, strip, &next, VIPS_DIRECTION_VERTICAL, NULL) != 0;
    shim_unref(strip);
    shim_unref(t);
    return failed ? NULL : next;
}

int CVipsShim_SheetTile(const char *path, int side, long number, CVipsShim_Image **result,
                        char **message) {
    char text[24];
    g_snprintf(text, sizeof text, "%ld", number < 0 ? 0 : number);
    return CVipsShim_SheetTileLabel(path, side, text, result, message);
}

int CVipsShim_SheetTileLabel(const char *path, int side, const char *label, CVipsShim_Image **result,
                             char **message) {
    if (side < 8 || !result || !label) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to SheetTile");
    }
    *result = NULL;
    VipsImage *t = NULL;
    if (path) {
        if (vips_thumbnail(path, &t, side, "height", side, NULL) != 0) {
            return shim_fail(CVipsShim_DecodeFailed, message, "could not read image");
        }
        t = shim_to_8bit(t, VIPS_INTERPRETATION_sRGB, 3);
        if (!t) return shim_fail(CVipsShim_DecodeFailed, message, "could not convert image");
    } else {
        t = placeholder(side);
    }
    if (t) t = framed(t, side, label);
    if (!t) return shim_fail(CVipsShim_EncodeFailed, message, "could not make tile");
    // Decode now, so that the file is closed and the tile is a small block of
    // memory, however many tiles a sheet holds.
    VipsImage *memory = vips_image_copy_memory(t);
    shim_unref(t);
    if (!memory) return shim_fail(CVipsShim_DecodeFailed, message, "could not read image");
    *result = shim_handle(memory);
    return CVipsShim_OK;
}

int CVipsShim_SheetSave(CVipsShim_Image *const *tiles, int count, int across, const char *path,
                        char **message) {
    if (!tiles || count < 1 || across < 1 || !path) {
        return shim_fail(CVipsShim_BadArgument, message, "bad arguments to SheetSave");
    }
    VipsImage **images = g_new0(VipsImage *, count);
    for (int i = 0; i < count; i++) {
        if (!tiles[i] || !tiles[i]->image) {
            g_free(images);
            return shim_fail(CVipsShim_BadArgument, message, "missing tile");
        }
        images[i] = tiles[i]->image;
    }
    VipsArrayDouble *background = vips_array_double_newv(1, (double)tile_background);
    VipsImage *sheet = NULL;
    int status = vips_arrayjoin(images, &sheet, count, "across", across, "shim", 2,
                                "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    g_free(images);
    if (status != 0) return shim_fail(CVipsShim_EncodeFailed, message, "could not join tiles");
    // Straight to the file, a strip at a time: the encoded sheet is never
    // held in memory as well as its tiles.
    status = vips_pngsave(sheet, path, "strip", TRUE, "compression", 6, NULL);
    shim_unref(sheet);
    if (status != 0) return shim_fail(CVipsShim_EncodeFailed, message, "could not write sheet");
    return CVipsShim_OK;
}
