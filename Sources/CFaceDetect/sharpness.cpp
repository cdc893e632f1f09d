// Focus measures of a face box. See include/CFaceDetectQuality.h.
#include "internal.hpp"

#include <algorithm>
#include <cmath>

using namespace cfacedetect;

extern "C" double CFaceDetect_Sharpness(const uint8_t *gray, int width, int height, size_t stride,
                                        int x, int y, int box_width, int box_height) {
    try {
        if (!gray || width < 1 || height < 1) return -1;
        cv::Mat image = wrapGray(gray, width, height, stride);
        cv::Rect box = cv::Rect(x, y, box_width, box_height) & cv::Rect(0, 0, width, height);
        if (box.width < 2 || box.height < 2) return -1;
        cv::Mat resized, laplacian;
        cv::resize(image(box), resized, cv::Size(96, 96), 0, 0, cv::INTER_AREA);
        cv::Laplacian(resized, laplacian, CV_64F);
        cv::Scalar mean, deviation;
        cv::meanStdDev(laplacian, mean, deviation);
        return deviation[0] * deviation[0];
    } catch (...) {
        return -1;
    }
}

// The spectral moments' ratio: for detail at wavelength w the steps grow as
// 1/w and the second differences as 1/w^2, so sqrt(sum steps^2 / sum second
// differences^2) is a length in pixels (0.5 for detail at the pixel grid's
// limit, sigma for a Gaussian blur of sigma px, m times itself for a face
// enlarged m times). A ratio, so it does not change with contrast.
extern "C" double CFaceDetect_Softness(const uint8_t *gray, int width, int height, size_t stride,
                                       int x, int y, int box_width, int box_height) {
    try {
        if (!gray || width < 1 || height < 1) return -1;
        cv::Mat image = wrapGray(gray, width, height, stride);
        cv::Rect box = cv::Rect(x, y, box_width, box_height) & cv::Rect(0, 0, width, height);
        if (box.width < 3 || box.height < 3) return -1;
        double steps = 0, seconds = 0;
        for (int row = box.y; row < box.y + box.height; row++) {
            const uint8_t *p = image.ptr<uint8_t>(row);
            for (int col = box.x + 1; col + 1 < box.x + box.width; col++) {
                double d = double(p[col + 1]) - p[col], l = double(p[col + 1]) - 2.0 * p[col] + p[col - 1];
                steps += d * d, seconds += l * l;
            }
        }
        for (int row = box.y + 1; row + 1 < box.y + box.height; row++) {
            const uint8_t *up = image.ptr<uint8_t>(row - 1), *p = image.ptr<uint8_t>(row), *down = image.ptr<uint8_t>(row + 1);
            for (int col = box.x; col < box.x + box.width; col++) {
                double d = double(down[col]) - p[col], l = double(down[col]) - 2.0 * p[col] + up[col];
                steps += d * d, seconds += l * l;
            }
        }
        // A flat box (no detail at all) is as soft as can be measured: its side.
        if (seconds <= 0) return std::max(box.width, box.height);
        return std::sqrt(steps / seconds);
    } catch (...) {
        return -1;
    }
}
