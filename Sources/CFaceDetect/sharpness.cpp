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
namespace {

// The ratio above over a matrix of one channel (8-bit or double).
template <typename T> double softnessOf(const cv::Mat &image) {
    double steps = 0, seconds = 0;
    for (int row = 0; row < image.rows; row++) {
        const T *p = image.ptr<T>(row);
        for (int col = 1; col + 1 < image.cols; col++) {
            double d = double(p[col + 1]) - p[col], l = double(p[col + 1]) - 2.0 * p[col] + p[col - 1];
            steps += d * d, seconds += l * l;
        }
    }
    for (int row = 1; row + 1 < image.rows; row++) {
        const T *up = image.ptr<T>(row - 1), *p = image.ptr<T>(row), *down = image.ptr<T>(row + 1);
        for (int col = 0; col < image.cols; col++) {
            double d = double(down[col]) - p[col], l = double(down[col]) - 2.0 * p[col] + up[col];
            steps += d * d, seconds += l * l;
        }
    }
    // A flat box (no detail at all) is as soft as can be measured: its side.
    if (seconds <= 0) return std::max(image.cols, image.rows);
    return std::sqrt(steps / seconds);
}

} // namespace

extern "C" double CFaceDetect_Softness(const uint8_t *gray, int width, int height, size_t stride,
                                       int x, int y, int box_width, int box_height) {
    try {
        if (!gray || width < 1 || height < 1) return -1;
        cv::Mat image = wrapGray(gray, width, height, stride);
        cv::Rect box = cv::Rect(x, y, box_width, box_height) & cv::Rect(0, 0, width, height);
        if (box.width < 3 || box.height < 3) return -1;
        return softnessOf<uint8_t>(image(box));
    } catch (...) {
        return -1;
    }
}

// The box's means over cells of period x period pixels (the source's 8 x 8
// blocks in this image's pixels; their phase does not matter, a mean over a
// period removes the grid's steps wherever it lies), measured as above and
// counted back in the image's pixels.
extern "C" double CFaceDetect_BlockSoftness(const uint8_t *gray, int width, int height, size_t stride, int x, int y,
                                            int box_width, int box_height, double period) {
    try {
        if (!gray || width < 1 || height < 1 || !(period >= 1) || !std::isfinite(period)) return -1;
        cv::Mat image = wrapGray(gray, width, height, stride);
        cv::Rect box = cv::Rect(x, y, box_width, box_height) & cv::Rect(0, 0, width, height);
        int columns = int(box.width / period), rows = int(box.height / period);
        if (columns < 4 || rows < 4) return -1;
        cv::Mat sums = cv::Mat::zeros(rows, columns, CV_64F), counts = cv::Mat::zeros(rows, columns, CV_64F);
        for (int row = 0; row < int(rows * period) && row < box.height; row++) {
            const uint8_t *p = image.ptr<uint8_t>(box.y + row) + box.x;
            int cellRow = std::min(int(row / period), rows - 1);
            for (int col = 0; col < int(columns * period) && col < box.width; col++) {
                int cellColumn = std::min(int(col / period), columns - 1);
                sums.at<double>(cellRow, cellColumn) += p[col];
                counts.at<double>(cellRow, cellColumn) += 1;
            }
        }
        cv::Mat means = sums / cv::max(counts, 1.0);
        return period * softnessOf<double>(means);
    } catch (...) {
        return -1;
    }
}
