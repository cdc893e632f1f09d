#!/usr/bin/env bash
# Rebuilds Fixtures/ from the upstream package files. Not run by CI; kept so the
# derivations recorded in SOURCES.md are reproducible.
# Needs: vips (8.14), exiftool (libimage-exiftool-perl), python3, unzip, dpkg-deb.
# Inputs (fetched with the ordinary clients, see SOURCES.md):
#   SK=<dir with skimage/data/ unzipped from scikit_image-0.26.0 wheel>
#   MPL=<dir with python-matplotlib-data_3.6.3-1 extracted (dpkg-deb -x)>
set -euo pipefail
SK=${SK:-/tmp/skd}
MPL=${MPL:-/tmp/deb/x}
D=$(cd "$(dirname "$0")/.." && pwd)
S=$SK/skimage/data
HOP=$MPL/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$D"/{faces,noface,rotated,formats,broken}

# ---------- faces/ ----------
vips copy "$S/astronaut.png" "$D/faces/astronaut.jpg[Q=85,strip]"
cp "$HOP" "$D/faces/grace_hopper.jpg"                       # byte-identical copy
vips resize "$S/astronaut.png" "$T/big.v" 3 --kernel lanczos3
vips copy "$T/big.v" "$D/faces/astronaut-large.jpg[Q=85,strip]"     # 1536x1536
vips resize "$HOP" "$T/hop512.v" 0.8533333333333334 --kernel lanczos3   # 600 px high -> 512
vips copy "$S/astronaut.png" "$T/astro.v"
vips arrayjoin "$T/astro.v $T/hop512.v" "$T/two.v" --across 2 --background 0
vips copy "$T/two.v" "$D/faces/two-people.jpg[Q=85,strip]"

# ---------- noface/ ----------
vips copy "$S/coffee.png"  "$D/noface/coffee.jpg[Q=85,strip]"
vips copy "$S/chelsea.png" "$D/noface/chelsea.jpg[Q=85,strip]"
vips copy "$S/camera.png"  "$D/noface/camera.jpg[Q=85,strip]"  # person in profile: no frontal face
cp "$S/rocket.jpg" "$D/noface/rocket.jpg"                       # byte-identical copy

# ---------- rotated/ ----------
# Upright base: astronaut cropped to a 384x512 portrait (non-square, so a
# missing width/height swap is visible).
vips crop "$S/astronaut.png" "$T/up.v" 64 0 384 512
# Stored pixels for orientation N = inverse of the display transform of N.
# vips rot d90 = rotate 90 deg clockwise; vips flip horizontal = mirror left<->right.
store() { # $1 = orientation, rest = vips ops applied to the upright image
  local n=$1; shift
  local cur="$T/up.v" i=0
  while [ $# -gt 0 ]; do
    i=$((i+1))
    case $1 in
      rot) vips rot "$cur" "$T/s$n-$i.v" "$2"; shift 2;;
      flip) vips flip "$cur" "$T/s$n-$i.v" "$2"; shift 2;;
    esac
    cur="$T/s$n-$i.v"
  done
  vips copy "$cur" "$D/rotated/astronaut-orient-$n.jpg[Q=85,strip]"
  exiftool -q -n -overwrite_original "-Orientation=$n" "$D/rotated/astronaut-orient-$n.jpg"
}
store 1
store 2 flip horizontal
store 3 rot d180
store 4 flip vertical
store 5 rot d90 flip horizontal      # transpose
store 6 rot d270                     # display: rotate 90 CW
store 7 rot d90 flip vertical        # transverse
store 8 rot d90                      # display: rotate 90 CCW
# Sideways pixels with NO orientation tag: a frontal-face detector should find nothing.
vips copy "$D/rotated/astronaut-orient-6.jpg" "$D/rotated/astronaut-sideways-notag.jpg[Q=85,strip]"

# ---------- formats/ ----------
A="$S/astronaut.png"
vips copy "$A" "$T/a.v"
# PNG variants use a 320x320 head crop (x 96..415, y 0..319) to keep them small.
vips crop "$A" "$T/head.v" 96 0 320 320
# RGBA: alpha = soft-edged ellipse cutout around head and shoulders
# (255 inside, 0 outside, ~24 px linear ramp); RGB under alpha=0 is zeroed,
# as cutout tools usually do.
python3 - "$T" <<'PY'
import sys, numpy as np
T = sys.argv[1]
h = w = 320
y, x = np.mgrid[0:h, 0:w].astype(np.float64)
d = np.sqrt(((x - 130) / 130.0) ** 2 + ((y - 175) / 175.0) ** 2)
a = np.clip((1.0 - d) * 150.0 / 24.0 + 0.5, 0, 1) * 255
a = np.round(a).astype(np.uint8)
with open(f"{T}/alpha.pgm", "wb") as f:
    f.write(b"P5\n%d %d\n255\n" % (w, h)); f.write(a.tobytes())
PY
vips relational_const "$T/alpha.pgm" "$T/mask.v" more 0
vips black "$T/zero.v" 320 320 --bands 3
vips cast "$T/zero.v" "$T/zero8.v" uchar
vips ifthenelse "$T/mask.v" "$T/head.v" "$T/zero8.v" "$T/headz.v"
vips bandjoin "$T/headz.v $T/alpha.pgm" "$T/rgba.v"
vips copy "$T/rgba.v" "$D/formats/astronaut-rgba.png[compression=9,strip]"
vips colourspace "$T/head.v" "$T/h16.v" grey16
vips copy "$T/h16.v" "$D/formats/astronaut-gray16.png[compression=9,strip]"
vips copy "$T/head.v" "$T/p.png[strip,compression=9]"; cp "$T/p.png" "$D/formats/astronaut-png-named.jpg"
vips colourspace "$A" "$T/g.v" b-w
vips copy "$T/g.v" "$D/formats/astronaut-gray.jpg[Q=85,strip]"
vips copy "$A" "$D/formats/astronaut.webp[Q=80,strip]"
vips copy "$A" "$D/formats/astronaut.tif[compression=jpeg,Q=85,strip]"
vips copy "$A" "$D/formats/astronaut.heic[Q=50,strip]"
vips copy "$A" "$D/formats/astronaut.avif[Q=50,strip]"
vips copy "$A" "$D/formats/astronaut-upper.JPG[Q=85,strip]"
vips copy "$A" "$D/formats/astronaut-progressive.jpg[Q=85,interlace,strip]"
vips icc_transform "$A" "$D/formats/astronaut-cmyk.jpg[Q=85,strip]" cmyk   # 4-band CMYK JPEG, no embedded profile

# ---------- broken/ ----------
J="$D/faces/astronaut.jpg"
n=$(stat -c %s "$J"); head -c $((n * 40 / 100)) "$J" > "$D/broken/truncated.jpg"
: > "$D/broken/empty.jpg"
printf 'These are notes, not a JPEG.\nfacecrop must report this file as undecodable.\n' > "$D/broken/notes.jpg"
# broken PNGs are made from a 128x128 thumbnail of the astronaut (small file)
vips thumbnail "$S/astronaut.png" "$T/thumb.v" 128
vips copy "$T/thumb.v" "$T/ok.png[strip,compression=6]"
python3 - "$T/ok.png" "$D/broken" <<'PY'
import sys, struct, random
src, out = sys.argv[1:3]
ok = open(src, "rb").read()
def first_idat(b):
    pos = 8
    while pos < len(b):
        ln, typ = struct.unpack(">I4s", b[pos:pos + 8])
        if typ == b"IDAT":
            return pos, ln
        pos += 12 + ln
pos, ln = first_idat(ok)
# bad-crc.png: pixel data intact, first byte of the first IDAT's CRC inverted
b = bytearray(ok); b[pos + 8 + ln] ^= 0xFF
open(f"{out}/bad-crc.png", "wb").write(bytes(b))
# corrupt-idat.png: one byte in the middle of the first IDAT's zlib data inverted (CRC now wrong too)
b = bytearray(ok); b[pos + 8 + ln // 2] ^= 0xFF
open(f"{out}/corrupt-idat.png", "wb").write(bytes(b))
# truncated.png: first 40 % of the file
open(f"{out}/truncated.png", "wb").write(ok[: len(ok) * 40 // 100])
# garbage.heic: 4096 deterministic pseudo-random bytes with a .heic name
r = random.Random(1234)
open(f"{out}/garbage.heic", "wb").write(bytes(r.randrange(256) for _ in range(4096)))
PY
echo built
