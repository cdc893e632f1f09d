// swift-tools-version:6.0
import PackageDescription

// OpenCV's headers live in /usr/include/opencv4, which `.headerSearchPath` rejects
// (it only takes paths inside the package); this root package passes it as an
// unsafe flag instead and links only the OpenCV libraries the shim uses.
let openCVInclude = "/usr/include/opencv4"
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

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
        // The library, a target per layer; each imports only the layers below it
        // (docs/design.md draws them). Core has no dependency.
        .target(name: "FaceCropCore", swiftSettings: swift6),
        .target(name: "FaceCropImaging", dependencies: ["FaceCropCore", "CVipsShim", "CFaceDetect"], swiftSettings: swift6),
        .target(name: "FaceCropDetect", dependencies: ["FaceCropImaging", "CFaceDetect"], swiftSettings: swift6),
        .target(name: "FaceCropInputs", dependencies: ["FaceCropImaging"], swiftSettings: swift6),
        .target(name: "FaceCropOutput", dependencies: ["FaceCropDetect", "FaceCropInputs"], swiftSettings: swift6),
        .target(name: "FaceCropCurate", dependencies: ["FaceCropOutput"], swiftSettings: swift6),
        .target(name: "FaceCropPeople", dependencies: ["FaceCropCurate"], swiftSettings: swift6),
        .target(name: "FaceCropPhoto", dependencies: ["FaceCropPeople"], swiftSettings: swift6),
        .target(name: "FaceCropVideo", dependencies: ["FaceCropPhoto"], swiftSettings: swift6),
        .target(name: "FaceCropFinish", dependencies: ["FaceCropVideo"], swiftSettings: swift6),
        .target(name: "FaceCropPick", dependencies: ["FaceCropFinish"], swiftSettings: swift6),
        .target(name: "FaceCropKit", dependencies: ["FaceCropPick"], swiftSettings: swift6),
        .executableTarget(
            name: "facecrop",
            dependencies: ["FaceCropKit"],
            swiftSettings: swift6
        ),
        // Made-up inputs with known answers, for facecrop-bench and the tests; not in the product.
        .target(name: "FaceCropBench", dependencies: ["FaceCropKit"], swiftSettings: swift6),
        // Benchmarks: --people's grouping on generated descriptors, the quality record's cost, the floor.
        .executableTarget(
            name: "facecrop-bench",
            dependencies: ["FaceCropBench"],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "FaceCropKitTests",
            dependencies: ["FaceCropBench"],
            swiftSettings: swift6
        ),
    ]
)
