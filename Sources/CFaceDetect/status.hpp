// Internal to CFaceDetect: how every extern "C" body hands a failure to
// Swift, a status and a message the caller frees with CFaceDetect_Free. The
// files over dlib and Exiv2 include only this; the OpenCV files get it
// through internal.hpp, whose `guarded` also catches cv::Exception.
#ifndef CFACEDETECT_STATUS_HPP
#define CFACEDETECT_STATUS_HPP

#include "CFaceDetect.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace cfacedetect {

// A failure that knows its status (CFaceDetect_RuntimeError, ...): thrown
// inside a body, handed out by `guardedAs` with its own status and words.
struct Failure : std::runtime_error {
    int status;
    Failure(int status, const std::string &text) : std::runtime_error(text), status(status) {}
};

inline int report(int status, char **message, const std::string &text) {
    if (message) {
        *message = static_cast<char *>(std::malloc(text.size() + 1));
        if (*message) std::memcpy(*message, text.c_str(), text.size() + 1);
    }
    return status;
}

// Runs `body`; an exception becomes `status` with `prefix` and its words
// ("dlib: ", "Exiv2: "), a Failure its own status and words, running out
// of memory CFaceDetect_NoMemory.
template <typename Body> int guardedAs(int status, const char *prefix, char **message, Body body) {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return report(CFaceDetect_NoMemory, message, "out of memory");
    } catch (const Failure &e) {
        return report(e.status, message, e.what());
    } catch (const std::exception &e) {
        return report(status, message, std::string(prefix) + e.what());
    } catch (...) {
        return report(status, message, "unknown C++ exception");
    }
}

} // namespace cfacedetect

#endif
