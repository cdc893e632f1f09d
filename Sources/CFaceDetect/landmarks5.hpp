// Internal to CFaceDetect: the handle of dlib's 5-point predictor, loaded by
// landmarks5.cpp and run by embed.cpp too, so that one loaded model serves
// the quality record's pose and the face descriptor's chip.
#ifndef CFACEDETECT_LANDMARKS5_HPP
#define CFACEDETECT_LANDMARKS5_HPP

#include "CFaceDetect.h"

#include <dlib/image_processing/shape_predictor.h>

struct CFaceDetect_Landmarker {
    // Only read once loaded: shape_predictor's operator() is const and keeps
    // no state, so any number of threads may run it at once.
    dlib::shape_predictor predictor;
};

#endif
