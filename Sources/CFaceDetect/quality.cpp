// A face's quality measures: head pose from five points (cv::solvePnP on a
// generic 3D face) and exposure of its box. See include/CFaceDetectQuality.h.
#include "internal.hpp"

#include <cmath>

#include <opencv2/calib3d.hpp>

using namespace cfacedetect;

namespace {

// A generic face in camera-like axes (x to the image's right, y down, z away
// from the camera), in units of about 0.2 mm, for a face looking straight at
// the camera: from the common 3D head-pose model (nose tip at the origin,
// outer eye corners 450 apart), symmetric about x = 0, so that a mirrored
// photo gives exactly the mirrored pose.
// FaceLandmarks' order: eye centre nearer the image's left, the other eye
// centre, nose tip, mouth corner nearer the image's left, the other one.
const double detectorModel[5][3] = {
    {-152, -170, 135}, {152, -170, 135}, {0, 0, 0}, {-150, 150, 125}, {150, 150, 125}};
// dlib's 5-point predictor's order: outer and inner corner of the eye nearer
// the image's right, outer and inner corner of the other eye, the base of the nose.
// The outer eye corners lie about 10 mm behind the inner ones, the base of
// the nose about 18 mm in front of them and 0.55 outer-corner spans below
// (the mean on Fixtures' frontal portraits).
const double dlibModel[5][3] = {
    {225, -170, 185}, {80, -170, 135}, {-225, -170, 185}, {-80, -170, 135}, {0, 77, 45}};

double degrees(double radians) { return radians * 180.0 / M_PI; }

} // namespace

extern "C" int CFaceDetect_Pose(const float *points, int kind, int width, int height, double *yaw, double *pitch,
                                double *roll, char **message) {
    return guarded(message, [&]() -> int {
        if (!points || !yaw || !pitch || !roll || width < 1 || height < 1 || (kind != 0 && kind != 1)) {
            return report(CFaceDetect_BadArgument, message, "bad arguments to pose");
        }
        const double(*model)[3] = kind == 0 ? detectorModel : dlibModel;
        std::vector<cv::Point3d> object;
        std::vector<cv::Point2d> image;
        cv::Point2d mean(0, 0), modelMean(0, 0);
        for (int i = 0; i < 5; i++) {
            if (!std::isfinite(points[2 * i]) || !std::isfinite(points[2 * i + 1])) {
                return report(CFaceDetect_BadArgument, message, "a landmark is not a number");
            }
            object.emplace_back(model[i][0], model[i][1], model[i][2]);
            image.emplace_back(points[2 * i], points[2 * i + 1]);
            mean += image.back() / 5.0;
            modelMean += cv::Point2d(model[i][0], model[i][1]) / 5.0;
        }
        // The eyes' span in the image and in the model give the distance.
        cv::Point2d span = kind == 0 ? image[1] - image[0] : image[0] - image[2];
        double modelSpan = kind == 0 ? 304 : 450;
        double eyes = std::hypot(span.x, span.y);
        if (!(eyes > 0.5)) return report(CFaceDetect_BadArgument, message, "the eyes coincide");
        // A generic camera: focal length the photo's long side (about 53
        // degrees across it), centre the photo's centre, no distortion.
        double focal = std::max(width, height);
        cv::Matx33d camera(focal, 0, (width - 1) / 2.0, 0, focal, (height - 1) / 2.0, 0, 0, 1);
        // Start from the face looking at the camera where its points are.
        double z = focal * modelSpan / eyes;
        cv::Mat rvec = (cv::Mat_<double>(3, 1) << 0, 0, 0);
        cv::Mat tvec = (cv::Mat_<double>(3, 1) << (mean.x - camera(0, 2)) * z / focal - modelMean.x,
                        (mean.y - camera(1, 2)) * z / focal - modelMean.y, z);
        cv::solvePnP(object, image, camera, cv::noArray(), rvec, tvec, true, cv::SOLVEPNP_ITERATIVE);
        cv::Matx33d r;
        cv::Rodrigues(rvec, r);
        // Where the face looks (its -z axis), against the line from the face
        // to the camera: 0 for a face looking into the lens wherever it is in
        // the photo.
        cv::Vec3d look(-r(0, 2), -r(1, 2), -r(2, 2));
        cv::Vec3d toCamera(-tvec.at<double>(0), -tvec.at<double>(1), -tvec.at<double>(2));
        *yaw = degrees(std::atan2(look[0], -look[2]) - std::atan2(toCamera[0], -toCamera[2]));
        *pitch = degrees(std::atan2(-look[1], std::hypot(look[0], look[2])) -
                         std::atan2(-toCamera[1], std::hypot(toCamera[0], toCamera[2])));
        // The face's x axis in the image: clockwise is positive (y grows down).
        *roll = degrees(std::atan2(r(1, 0), r(0, 0)));
        if (!std::isfinite(*yaw) || !std::isfinite(*pitch) || !std::isfinite(*roll)) {
            return report(CFaceDetect_OpenCVError, message, "the pose did not converge");
        }
        return CFaceDetect_OK;
    });
}

extern "C" int CFaceDetect_Exposure(const uint8_t *gray, int width, int height, size_t stride, int x, int y,
                                    int box_width, int box_height, double *mean, double *dark, double *bright,
                                    double *blockiness) {
    try {
        if (!gray || width < 1 || height < 1 || !mean || !dark || !bright || !blockiness) return CFaceDetect_BadArgument;
        cv::Mat image = wrapGray(gray, width, height, stride);
        // The box's middle (the face without hair and background).
        cv::Rect inner(x + box_width / 6, y + box_height / 6, box_width - 2 * (box_width / 6),
                       box_height - 2 * (box_height / 6));
        cv::Rect box = inner & cv::Rect(0, 0, width, height);
        if (box.width < 2 || box.height < 2) return CFaceDetect_BadArgument;
        cv::Mat face = image(box);
        long sum = 0, low = 0, high = 0;
        for (int row = 0; row < face.rows; row++) {
            const uint8_t *p = face.ptr<uint8_t>(row);
            for (int col = 0; col < face.cols; col++) {
                sum += p[col];
                low += p[col] <= 10;
                high += p[col] >= 245;
            }
        }
        double count = double(face.rows) * face.cols;
        *mean = sum / count / 255.0;
        *dark = low / count;
        *bright = high / count;
        // JPEG's 8 x 8 blocks: the mean step across columns and rows at
        // multiples of 8 (in the image's own grid) over the mean step
        // elsewhere (plus one grey level each); about 1 without blocks.
        double onGrid = 0, offGrid = 0;
        long onCount = 0, offCount = 0;
        for (int row = box.y; row < box.y + box.height; row++) {
            const uint8_t *p = image.ptr<uint8_t>(row);
            for (int col = std::max(box.x, 1); col < box.x + box.width; col++) {
                double step = std::abs(int(p[col]) - int(p[col - 1]));
                if (col % 8 == 0) onGrid += step, onCount++;
                else offGrid += step, offCount++;
            }
        }
        for (int row = std::max(box.y, 1); row < box.y + box.height; row++) {
            const uint8_t *p = image.ptr<uint8_t>(row), *q = image.ptr<uint8_t>(row - 1);
            for (int col = box.x; col < box.x + box.width; col++) {
                double step = std::abs(int(p[col]) - int(q[col]));
                if (row % 8 == 0) onGrid += step, onCount++;
                else offGrid += step, offCount++;
            }
        }
        // One grey level added to both: a flat (dark, blown) face's tiny
        // steps do not make a ratio of noise.
        *blockiness = onCount > 0 && offCount > 0 ? (onGrid / onCount + 1) / (offGrid / offCount + 1) : 1;
        return CFaceDetect_OK;
    } catch (...) {
        return CFaceDetect_OpenCVError;
    }
}
