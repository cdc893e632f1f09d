// Where a detector's five points land in dlib's own face chip (150 px,
// padding 0.25, from its 5-point predictor): the measurement behind the
// template in Sources/CFaceDetect/embed.cpp. Built and run by
// scripts/chip-template; reads lines "IMAGE X Y W H x1 y1 ... x5 y5" (an
// upright image, the face box and the detector's points in its pixels) on
// stdin and writes the ten chip coordinates of each face on stdout.
#include <dlib/image_io.h>
#include <dlib/image_processing.h>
#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: chip-template shape_predictor_5_face_landmarks.dat < faces\n";
        return 2;
    }
    dlib::shape_predictor predictor;
    dlib::deserialize(argv[1]) >> predictor;
    std::string line, loaded;
    dlib::matrix<dlib::rgb_pixel> image;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string path;
        double x, y, w, h;
        double p[10];
        in >> path >> x >> y >> w >> h;
        for (double &v : p) in >> v;
        if (!in) continue;
        if (path != loaded) {
            dlib::load_image(image, path);
            loaded = path;
        }
        dlib::drectangle box(x, y, x + w - 1, y + h - 1);
        auto shape = predictor(image, box);
        auto toChip = dlib::get_mapping_to_chip(dlib::get_face_chip_details(shape, 150, 0.25));
        for (int i = 0; i < 5; i++) {
            dlib::dpoint q = toChip(dlib::dpoint(p[2 * i], p[2 * i + 1]));
            std::cout << q.x() << ' ' << q.y() << (i == 4 ? '\n' : ' ');
        }
    }
    return 0;
}
