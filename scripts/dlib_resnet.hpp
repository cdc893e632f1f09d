// dlib's face recognition ResNet (dlib_face_recognition_resnet_model_v1.dat)
// as a dlib network type, declared layer by layer from its documented
// architecture (dlib's dnn_face_recognition_ex.cpp) so that the model file
// deserializes into it: 29 convolutions, 150 x 150 RGB in, 128 numbers out.
// facecrop itself runs the network on ONNX Runtime (embed.cpp); this type is
// for the tools that read dlib's file: descriptor-xml.cpp (the dump the ONNX
// model is made from) and embed-runtime.cpp (dlib against the ONNX model).
#ifndef FACECROP_DLIB_RESNET_HPP
#define FACECROP_DLIB_RESNET_HPP

#include <dlib/dnn.h>

namespace resnet {
using namespace dlib;
template <int N, template <typename> class BN, int stride, typename SUBNET>
using block = BN<con<N, 3, 3, 1, 1, relu<BN<con<N, 3, 3, stride, stride, SUBNET>>>>>;
template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual = add_prev1<block<N, BN, 1, tag1<SUBNET>>>;
template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual_down = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<block<N, BN, 2, tag1<SUBNET>>>>>>;
template <int N, typename SUBNET> using ares = relu<residual<block, N, affine, SUBNET>>;
template <int N, typename SUBNET> using ares_down = relu<residual_down<block, N, affine, SUBNET>>;
template <typename SUBNET> using alevel0 = ares_down<256, SUBNET>;
template <typename SUBNET> using alevel1 = ares<256, ares<256, ares_down<256, SUBNET>>>;
template <typename SUBNET> using alevel2 = ares<128, ares<128, ares_down<128, SUBNET>>>;
template <typename SUBNET> using alevel3 = ares<64, ares<64, ares<64, ares_down<64, SUBNET>>>>;
template <typename SUBNET> using alevel4 = ares<32, ares<32, ares<32, SUBNET>>>;
using Network = loss_metric<fc_no_bias<128, avg_pool_everything<alevel0<alevel1<alevel2<alevel3<alevel4<
    max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>>>>>>>>>;
} // namespace resnet

#endif
