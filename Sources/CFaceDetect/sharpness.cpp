// Focus measure of a face box. See include/CFaceDetectQuality.h.
#include "internal.hpp"

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
