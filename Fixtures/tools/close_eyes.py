# Makes a closed-eye copy of a portrait: each eye's opening covered by the
# skin of the lid just above it, blended in, with a dark lash line.
#
#     python3 close_eyes.py IN.jpg OUT.jpg X1,Y1 X2,Y2
#
# X,Y: the two eye centres in IN's pixels (as CenterFace's landmarks give
# them). Needs numpy and Pillow; see Fixtures/SOURCES.md, "eyes/".
import sys, numpy as np
from PIL import Image, ImageFilter
src, dst = sys.argv[1], sys.argv[2]
eyes = [tuple(map(float, sys.argv[i].split(','))) for i in (3, 4)]
im = np.asarray(Image.open(src).convert('RGB')).astype(np.float32)
d = abs(eyes[1][0] - eyes[0][0])
out = im.copy()
for (cx, cy) in eyes:
    w, h = 0.36 * d, 0.13 * d
    x0, x1 = int(cx - w), int(cx + w) + 1
    y0, y1 = int(cy - h), int(cy + h) + 1
    patch_y0 = int(cy - h - 0.16 * d)  # the lid's skin above the eye
    for y in range(y0, y1):
        for x in range(x0, x1):
            u, v = (x - cx) / w, (y - cy) / h
            r = u * u + v * v
            if r > 1.6: continue
            a = 1.0 if r < 0.8 else max(0.0, (1.6 - r) / 0.8)
            sy = patch_y0 + (y - y0) // 3
            out[y, x] = a * im[sy, x] + (1 - a) * im[y, x]
    # the lash line: a gentle downward curve through the eye's middle
    for x in range(x0 + 2, x1 - 2):
        u = (x - cx) / w
        yy = cy + 0.05 * d * (1 - u * u)
        for y in range(int(yy) - 1, int(yy) + 2):
            k = 0.55 * (1 - abs(u) ** 3) * (1 - abs(y - yy) / 1.5)
            if k > 0: out[y, x] = (1 - k) * out[y, x] + k * np.array([40, 30, 28])
Image.fromarray(np.clip(out, 0, 255).astype(np.uint8)).save(dst, quality=95)
