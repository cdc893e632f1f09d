// XMP face regions, read and written through Exiv2 (xmp.cpp). Pure C; see
// CFaceDetect.h.
#ifndef CFACEDETECT_XMP_H
#define CFACEDETECT_XMP_H

#include "CFaceDetectCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The face regions of one XMP packet, as Exiv2 decoded it. Opaque, one
/// owner; freed by CFaceDetect_XmpRegionsFree.
typedef struct CFaceDetect_XmpRegions CFaceDetect_XmpRegions;

/// One region as the packet spells it: every field is the packet's text
/// (NULL where the packet has none), read and checked by the caller.
typedef struct {
    /// 0: the Metadata Working Group's (mwg-rs:RegionList, an Area whose
    /// x and y are its centre); 1: Microsoft's (MPRI:Regions, a Rectangle
    /// "left, top, width, height").
    int schema;
    /// 1-based place in its list.
    int position;
    /// mwg-rs:Name, or MPReg:PersonDisplayName.
    const char *name;
    /// mwg-rs:Type ("Face", "Pet", ...); NULL for Microsoft's.
    const char *type;
    /// mwg-rs:Area's stArea:x, y, w, h and unit.
    const char *x;
    const char *y;
    const char *w;
    const char *h;
    const char *unit;
    /// MPReg:Rectangle.
    const char *rectangle;
} CFaceDetect_XmpRegion;

/// Decodes the XMP packet `packet` (`length` bytes: embedded XMP or a whole
/// sidecar file) and collects its face regions. A packet with a DOCTYPE or
/// an entity declaration is refused before it is parsed. Returns
/// CFaceDetect_BadArgument (message says why) for a packet that is not XMP.
int CFaceDetect_XmpRegionsRead(const char *packet, size_t length, CFaceDetect_XmpRegions **regions, char **message);

size_t CFaceDetect_XmpRegionCount(const CFaceDetect_XmpRegions *regions);

/// Region `index` (< count); valid while `regions` is.
const CFaceDetect_XmpRegion *CFaceDetect_XmpRegionAt(const CFaceDetect_XmpRegions *regions, size_t index);

/// mwg-rs:AppliedToDimensions' stDim:w, stDim:h and stDim:unit (NULL each
/// where absent).
const char *CFaceDetect_XmpAppliedWidth(const CFaceDetect_XmpRegions *regions);
const char *CFaceDetect_XmpAppliedHeight(const CFaceDetect_XmpRegions *regions);
const char *CFaceDetect_XmpAppliedUnit(const CFaceDetect_XmpRegions *regions);

void CFaceDetect_XmpRegionsFree(CFaceDetect_XmpRegions *regions);

/// A named face to write: its name (UTF-8) and its area, normalised to the
/// stored pixels, centre-based as MWG says.
typedef struct {
    const char *name;
    double x;
    double y;
    double w;
    double h;
} CFaceDetect_XmpFace;

/// An XMP sidecar (a whole packet, as text) with MWG face regions for
/// `count` faces of a photo whose stored pixels are `width` x `height`.
/// The caller frees `*packet` with CFaceDetect_Free.
int CFaceDetect_XmpRegionsWrite(const CFaceDetect_XmpFace *faces, size_t count, int width, int height, char **packet,
                                char **message);

#ifdef __cplusplus
}
#endif

#endif
