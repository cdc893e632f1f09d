// Shim-wide calls: OpenCV's thread count and freeing what the shim hands out.
#include "internal.hpp"

extern "C" void CFaceDetect_SetNumThreads(int threads) {
    try {
        cv::setNumThreads(threads < 1 ? 1 : threads);
    } catch (...) {
    }
}

extern "C" void CFaceDetect_Free(void *pointer) {
    std::free(pointer);
}
