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
        // dlib's libdlib.so calls BLAS and LAPACK, which the link must name (the face
        // descriptor's network runs on ONNX Runtime, so no pass of ours depends on the BLAS).
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
        // The library, a target per layer (docs/design.md draws them). Each names
        // exactly the targets its files import, all of them lower layers;
        // scripts/test builds with --explicit-target-dependency-import-check=error,
        // so an import that is not declared here does not build.
        // records, errors, exit statuses, geometry, settings values, JSON, atomic files; no dependency
        .target(name: "FaceCropCore", dependencies: [], swiftSettings: swift6),
        // pixels: libvips handles, the photo file, alignment, the measured quality record
        .target(name: "FaceCropImaging", dependencies: ["FaceCropCore", "CVipsShim", "CFaceDetect"], swiftSettings: swift6),
        // finding the photos: the walk, photo libraries, sidecars, file kinds
        .target(name: "FaceCropInputs", dependencies: ["FaceCropCore"], swiftSettings: swift6),
        // the finders, one file each, behind FaceFinder; dlib's landmarks and descriptor
        .target(name: "FaceCropDetect", dependencies: ["FaceCropCore", "FaceCropImaging", "CFaceDetect"], swiftSettings: swift6),
        // the dataset's files: manifest, state and journal, stats, the output lock
        .target(name: "FaceCropOutput", dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropDetect"], swiftSettings: swift6),
        // rejections, deleted crops, --dedup, --split, the curation files
        .target(name: "FaceCropCurate", dependencies: ["FaceCropCore", "FaceCropInputs", "FaceCropOutput"], swiftSettings: swift6),
        // identity: grouping, people.txt and naming, `facecrop people`
        .target(name: "FaceCropPeople", dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropDetect", "FaceCropOutput", "FaceCropCurate", "CFaceDetect"], swiftSettings: swift6),
        // one photo's stages: read, decode, detect, place, write
        .target(name: "FaceCropPhoto", dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropDetect", "FaceCropOutput", "FaceCropCurate"], swiftSettings: swift6),
        // videos as a source: probe, sample, track, the second read
        .target(name: "FaceCropVideo", dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropInputs", "FaceCropDetect", "FaceCropOutput", "FaceCropCurate", "FaceCropPhoto", "CVipsShim"], swiftSettings: swift6),
        // after the crops: contact sheet, report, People page, clips, dataset card
        .target(name: "FaceCropFinish", dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropInputs", "FaceCropDetect", "FaceCropOutput", "FaceCropCurate", "FaceCropPeople", "FaceCropVideo", "CVipsShim"], swiftSettings: swift6),
        // `facecrop pick`
        .target(name: "FaceCropPick", dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropInputs", "FaceCropOutput", "FaceCropCurate", "FaceCropPeople", "FaceCropPhoto", "FaceCropVideo", "FaceCropFinish"], swiftSettings: swift6),
        // the run (setup -> plan -> pipeline -> commit -> finish) and the command line
        .target(name: "FaceCropKit", dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropInputs", "FaceCropDetect", "FaceCropOutput", "FaceCropCurate", "FaceCropPeople", "FaceCropPhoto", "FaceCropVideo", "FaceCropFinish", "FaceCropPick", "CVipsShim"], swiftSettings: swift6),
        .executableTarget(
            name: "facecrop",
            dependencies: ["FaceCropCore", "FaceCropKit"],
            swiftSettings: swift6
        ),
        // Made-up inputs with known answers and the quality record's cost, for
        // facecrop-bench and the tests; nothing in the product uses it.
        .target(
            name: "FaceCropBench",
            dependencies: ["FaceCropCore", "FaceCropImaging", "FaceCropDetect", "FaceCropCurate", "FaceCropPeople"],
            swiftSettings: swift6
        ),
        // Benchmarks: --people's grouping on generated descriptors, naming, --dedup's index, the quality record,
        // the floor (decode and one detection pass).
        .executableTarget(
            name: "facecrop-bench",
            dependencies: [
                "FaceCropBench", "FaceCropCore", "FaceCropImaging", "FaceCropInputs", "FaceCropDetect", "FaceCropCurate",
                "FaceCropPeople", "FaceCropPhoto", "FaceCropKit",
            ],
            swiftSettings: swift6
        ),
        .testTarget(
            name: "FaceCropKitTests",
            dependencies: [
                "FaceCropCore", "FaceCropImaging", "FaceCropInputs", "FaceCropDetect", "FaceCropOutput", "FaceCropCurate",
                "FaceCropPeople", "FaceCropPhoto", "FaceCropVideo", "FaceCropFinish", "FaceCropPick", "FaceCropKit",
                "FaceCropBench",
            ],
            swiftSettings: swift6
        ),
    ]
)
