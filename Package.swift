// swift-tools-version:6.0
import PackageDescription

// OpenCV's headers live in /usr/include/opencv4, which `.headerSearchPath` rejects
// (it only takes paths inside the package); this root package passes it as an
// unsafe flag instead and links only the OpenCV libraries the shim uses.
let openCVInclude = "/usr/include/opencv4"

let package = Package(
    name: "facecrop",
    products: [
        .executable(name: "facecrop", targets: ["facecrop"]),
        .library(name: "FaceCropKit", targets: ["FaceCropKit"]),
    ],
    targets: [
        // libvips compile and link flags, from pkg-config (vips.pc).
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // Pure-C wrapper over libvips' variadic calls and macros, which Swift cannot call.
        .target(
            name: "CVipsShim",
            dependencies: ["CVips"],
            // HEIF/AVIF planes straight from libheif (libheif-dev, which libvips-dev pulls in);
            // SHA-256 from OpenSSL's libcrypto (libssl-dev), which libvips already loads.
            linkerSettings: [.linkedLibrary("heif"), .linkedLibrary("crypto")]
        ),
        // C++ over OpenCV and dlib behind a pure-C header; every extern "C" body catches.
        // dlib's libdlib.so calls BLAS and LAPACK, which the link must name
        // (Debian's libblas.so.3 is OpenBLAS with libopenblas0-pthread: 40 ms a face).
        .target(
            name: "CFaceDetect",
            cxxSettings: [.unsafeFlags(["-I\(openCVInclude)", "-std=c++17"])],
            linkerSettings: [
                .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("opencv_dnn"),
                .linkedLibrary("opencv_calib3d"),
                .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_core"),
                .linkedLibrary("dlib"),
                .linkedLibrary("lapack"),
                .linkedLibrary("blas"),
                // XMP face regions (xmp.cpp): Debian's libexiv2-dev.
                .linkedLibrary("exiv2"),
                .linkedLibrary("stdc++"),
            ]
        ),
        .target(
            name: "FaceCropKit",
            dependencies: ["CVipsShim", "CFaceDetect"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "facecrop",
            dependencies: ["FaceCropKit"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // --people's grouping on generated descriptors, for scripts/bench-people.
        .executableTarget(
            name: "facecrop-bench",
            dependencies: ["FaceCropKit"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "FaceCropKitTests",
            dependencies: ["FaceCropKit"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
