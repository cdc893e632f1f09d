// dlib's 5-point landmark predictor alone (see include/CFaceDetectQuality.h): the
// points a face's pose is measured from where the detector gives none.
#include "CFaceDetect.h"
#include "landmarks5.hpp"
#include "status.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <sys/stat.h>

#include <dlib/image_processing.h>

namespace {

using cfacedetect::report;

template <typename Body> int guardedDlib(char **message, Body body) {
    return cfacedetect::guardedAs(CFaceDetect_OpenCVError, "dlib: ", message, body);
}

} // namespace

extern "C" int CFaceDetect_LandmarkerNew(const char *path, CFaceDetect_Landmarker **landmarker, char **message) {
    return guardedDlib(message, [&]() -> int {
        if (!landmarker) return report(CFaceDetect_BadArgument, message, "no handle");
        *landmarker = nullptr;
        struct stat info;
        if (!path || stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
            return report(CFaceDetect_LoadFailed, message, std::string("model file not found: ") + (path ? path : "(none)"));
        }
        auto *made = new CFaceDetect_Landmarker();
        try {
            dlib::deserialize(path) >> made->predictor;
        } catch (const std::exception &e) {
            delete made;
            return report(CFaceDetect_LoadFailed, message,
                          std::string("not a dlib landmark predictor: ") + path + " (" + e.what() + ")");
        }
        if (made->predictor.num_parts() != 5) {
            delete made;
            return report(CFaceDetect_LoadFailed, message, std::string("not dlib's 5-point landmark predictor: ") + path);
        }
        *landmarker = made;
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_LandmarkerFind(const CFaceDetect_Landmarker *landmarker, const uint8_t *gray, int width,
                                          int height, size_t stride, int x, int y, int box_width, int box_height,
                                          float *points, char **message) {
    return guardedDlib(message, [&]() -> int {
        if (!landmarker || !gray || !points || width < 1 || height < 1 || stride < static_cast<size_t>(width) ||
            box_width < 1 || box_height < 1) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to the landmark predictor");
        }
        // Only the box and a margin of half its size around it are copied.
        int left = std::max(0, x - box_width / 2), top = std::max(0, y - box_height / 2);
        int right = std::min(width, x + box_width + box_width / 2);
        int bottom = std::min(height, y + box_height + box_height / 2);
        if (right - left < 2 || bottom - top < 2) {
            return report(CFaceDetect_BadArgument, message, "the box is outside the image");
        }
        dlib::array2d<unsigned char> image(bottom - top, right - left);
        for (int row = top; row < bottom; row++) {
            std::memcpy(&image[row - top][0], gray + static_cast<size_t>(row) * stride + left, right - left);
        }
        dlib::rectangle box(x - left, y - top, x - left + box_width - 1, y - top + box_height - 1);
        dlib::full_object_detection shape = landmarker->predictor(image, box);
        // The predictor leans: on a mirrored face it does not find the
        // mirrored points. It is run on the mirror image too and the two
        // averaged, so that a mirrored photo gives mirrored points (and
        // the opposite yaw and roll) exactly.
        long side = right - left;
        dlib::array2d<unsigned char> mirror(bottom - top, side);
        for (long row = 0; row < mirror.nr(); row++) {
            for (long col = 0; col < side; col++) mirror[row][col] = image[row][side - 1 - col];
        }
        dlib::rectangle flipped(side - 1 - box.right(), box.top(), side - 1 - box.left(), box.bottom());
        dlib::full_object_detection other = landmarker->predictor(mirror, flipped);
        // The mirror's eye on the image's right is this image's left one.
        const unsigned long partner[5] = {2, 3, 0, 1, 4};
        for (unsigned long i = 0; i < 5; i++) {
            double mx = side - 1 - other.part(partner[i]).x(), my = other.part(partner[i]).y();
            points[2 * i] = static_cast<float>((shape.part(i).x() + mx) / 2.0 + left);
            points[2 * i + 1] = static_cast<float>((shape.part(i).y() + my) / 2.0 + top);
        }
        return CFaceDetect_OK;
    });
}

extern "C" void CFaceDetect_LandmarkerClose(CFaceDetect_Landmarker *landmarker) { delete landmarker; }
