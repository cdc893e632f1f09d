// CFaceDetect: OpenCV object detection behind a pure-C header.
//
// It exists because Swift cannot call OpenCV's C++ API, and C++ exceptions must
// never cross into Swift: every function returns a status, and on failure a
// message the caller owns (free it with CFaceDetect_Free). This header includes
// no OpenCV header; a detector is an opaque handle with one owner.
//
// The declarations are split by topic, one header each, all included here:
// the shared status, box and free; the cascades; the HOG bodies; the
// networks; ONNX Runtime, loaded at run time; the quality measures;
// identity; dense face landmarks; XMP face regions.
#ifndef CFACEDETECT_H
#define CFACEDETECT_H

#include "CFaceDetectCommon.h"
#include "CFaceDetectCascades.h"
#include "CFaceDetectBodies.h"
#include "CFaceDetectNetworks.h"
#include "CFaceDetectRuntime.h"
#include "CFaceDetectQuality.h"
#include "CFaceDetectIdentity.h"
#include "CFaceDetectMesh.h"
#include "CFaceDetectXmp.h"

#endif
