# Sourced by scripts/sanitize and scripts/fuzz: compiles every source file of
# both C shims, and the harness, with the caller's compiler flags, and names
# the libraries the harness links with (read from Package.swift).
#   shim_objects BUILD_DIR HARNESS_DEFINES...   (uses $cc and the array flags)
# Sets vips_objects, detect_objects and harness_object; shim_libs is the link list.
shim_objects() {
    local build=$1 source
    shift
    vips_objects=()
    for source in Sources/CVipsShim/*.c; do
        vips_objects+=("$build/vips-$(basename "$source" .c).o")
        "$cc" "${flags[@]}" -c "$source" -ISources/CVipsShim/include $(pkg-config --cflags vips) -o "${vips_objects[-1]}"
    done
    detect_objects=()
    for source in Sources/CFaceDetect/*.cpp; do
        detect_objects+=("$build/detect-$(basename "$source" .cpp).o")
        # hnswlib 0.6.2 (header-only) keeps each point's 8-byte label at a
        # 4-byte offset of its graph (x86 loads it fine): UBSan's alignment
        # check is left out for the one file that includes it.
        local extra=()
        [ "$(basename "$source")" = neighbours.cpp ] && extra=(-fno-sanitize=alignment)
        "$cc" "${flags[@]}" "${extra[@]}" -x c++ -std=c++17 -c "$source" -ISources/CFaceDetect/include -I/usr/include/opencv4 \
            -o "${detect_objects[-1]}"
    done
    harness_object=$build/harness.o
    "$cc" "${flags[@]}" "$@" -c Tests/Fuzz/shim_harness.c -ISources/CVipsShim/include -ISources/CFaceDetect/include \
        -o "$harness_object"
}
# The libraries are Package.swift's `.linkedLibrary` entries (the one list),
# plus libvips from pkg-config as its system-library target has it.
shim_libs=($(pkg-config --libs vips) $(grep -o 'linkedLibrary("[^"]*")' Package.swift | sed 's/linkedLibrary("\(.*\)")/-l\1/') -lm -fuse-ld=lld)
