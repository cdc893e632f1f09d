// Writes dlib's face recognition ResNet as dlib's net_to_xml does: every
// layer with its parameters at 9 significant digits (exact for float32).
// scripts/descriptor_model.py makes the ONNX model facecrop runs from it;
// scripts/fetch-dlib-models builds this tool (g++, dlib) and runs both.
//
//   descriptor-xml RECOGNITION OUT
#include "dlib_resnet.hpp"

#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: descriptor-xml dlib_face_recognition_resnet_model_v1.dat OUT.xml\n");
        return 64;
    }
    try {
        resnet::Network net;
        dlib::deserialize(argv[1]) >> net;
        dlib::net_to_xml(net, argv[2]);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "descriptor-xml: %s: %s\n", argv[1], e.what());
        return 1;
    }
    return 0;
}
