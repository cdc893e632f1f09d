"""dlib's face descriptor network as an ONNX model, from dlib's own dump.

    descriptor_model.py XML OUT

XML is what dlib's net_to_xml writes for dlib_face_recognition_resnet_model_v1
(scripts/yunet-runtime descriptor-xml makes it: every parameter at 9
significant digits, so float32 values read back exactly). The graph is built
layer by layer from it, input side first: con -> Conv (OIHW, as dlib stores
its filters), affine_con -> Mul and Add per channel, relu, max_pool and
avg_pool (dlib's output size is floor((in + 2p - k) / s) + 1, ONNX's
default), avg_pool_everything (nr 0) -> GlobalAveragePool, fc_no_bias ->
MatMul by the [inputs x outputs] weights dlib keeps, tag/skip as named
tensors, add_prev -> Add as large as the larger input in channels, rows
and cols, the other padded with zeros as dlib's tt::add presumes them (in
the last downsampling stages the shortcut's average pool gives 4 x 4 and 2
x 2 where the strided convolutions give 3 x 3 and 1 x 1). The input is the 150 x 150 chip as RGB 0-255
floats, NCHW; the graph subtracts dlib's channel means and divides by 256
as input_rgb_image_sized does. loss_metric adds nothing at inference: the
output "descriptor" is the fc layer's 128 numbers.
"""

import os
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def numbers(element):
    return np.array(element.text.split(), dtype=np.float32) if element.text and element.text.strip() else np.zeros(0, np.float32)


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, kind):
        self.count += 1
        return f"{kind}_{self.count}"

    def const(self, kind, array):
        n = self.name(kind)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), n))
        return n

    def op(self, op, inputs, kind, **attrs):
        out = self.name(kind)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out


def sized(shape, a):
    """The (channels, rows, cols) out of a window layer with attributes `a`
    on `shape`, as dlib computes it."""
    c, h, w = shape
    return (c, (h + 2 * a["padding_y"] - a["nr"]) // a["stride_y"] + 1,
            (w + 2 * a["padding_x"] - a["nc"]) // a["stride_x"] + 1)


def layer(g, x, shape, e):
    """Adds the computational layer `e` on `x` of (channels, rows, cols)
    `shape`; returns the new tensor and its shape."""
    channels = shape[0]
    a = {k: int(v) for k, v in e.attrib.items() if re.fullmatch(r"-?\d+", v)}
    if e.tag == "con":
        k = a["num_filters"]
        p = numbers(e)
        w = p[: k * channels * a["nr"] * a["nc"]].reshape(k, channels, a["nr"], a["nc"])
        inputs = [x, g.const("w", w)]
        if e.attrib["use_bias"] == "true":
            inputs.append(g.const("b", p[w.size:w.size + k]))
        pads = [a["padding_y"], a["padding_x"]] * 2
        return g.op("Conv", inputs, "conv", kernel_shape=[a["nr"], a["nc"]], strides=[a["stride_y"], a["stride_x"]],
                    pads=pads), (k,) + sized(shape, a)[1:]
    if e.tag == "affine_con":
        p = numbers(e)
        gamma, beta = p[:channels].reshape(1, channels, 1, 1), p[channels:2 * channels].reshape(1, channels, 1, 1)
        return g.op("Add", [g.op("Mul", [x, g.const("gamma", gamma)], "mul"), g.const("beta", beta)], "affine"), shape
    if e.tag == "relu":
        return g.op("Relu", [x], "relu"), shape
    if e.tag in ("max_pool", "avg_pool"):
        if a["nr"] == 0:
            return g.op("GlobalAveragePool" if e.tag == "avg_pool" else "GlobalMaxPool", [x], "gpool"), (channels, 1, 1)
        op = "MaxPool" if e.tag == "max_pool" else "AveragePool"
        extra = {"count_include_pad": 0} if op == "AveragePool" else {}
        return g.op(op, [x], "pool", kernel_shape=[a["nr"], a["nc"]], strides=[a["stride_y"], a["stride_x"]],
                    pads=[a["padding_y"], a["padding_x"]] * 2, **extra), sized(shape, a)
    if e.tag == "fc_no_bias":
        n = a["num_outputs"]
        w = numbers(e).reshape(-1, n)
        flat = g.op("Flatten", [x], "flat", axis=1)
        return g.op("MatMul", [flat, g.const("fc", w)], "fc"), (n,)
    sys.exit(f"descriptor_model: no conversion for dlib layer <{e.tag}>")


def add(g, x, shape, other, other_shape):
    """dlib's add_prev: the sum is as large as the larger of the two in each
    of channels, rows and cols, the other padded (after) with zeros."""
    out = tuple(max(a, b) for a, b in zip(shape, other_shape))
    def padded(t, s):
        if s == out:
            return t
        after = [0] + [o - d for o, d in zip(out, s)]
        return g.op("Pad", [t, g.const("pads", np.array([0, 0, 0, 0] + after, np.int64))], "pad")
    return g.op("Add", [padded(x, shape), padded(other, other_shape)], "add"), out


def convert(xml_path, out):
    layers = list(ET.parse(xml_path).getroot())[::-1]  # input first
    g = Graph()
    first = layers[0][0]
    if first.tag != "input_rgb_image_sized":
        sys.exit(f"descriptor_model: input <{first.tag}>, not input_rgb_image_sized")
    side = int(first.attrib["nr"])
    mean = np.array([float(first.attrib[c]) for c in "rgb"], np.float32).reshape(1, 3, 1, 1)
    x = g.op("Div", [g.op("Sub", ["chip", g.const("mean", mean)], "centred"), g.const("scale", np.float32(256))], "input")
    shape, tags = (3, side, side), {}
    for entry in layers[1:]:
        kind = entry.attrib["type"]
        if kind == "tag":
            tags[entry.attrib["id"]] = (x, shape)
        elif kind == "skip":
            x, shape = tags[entry.attrib["id"]]
        elif kind == "loss":
            pass
        elif entry[0].tag == "add_prev":
            other, other_shape = tags[entry[0].attrib["tag"]]
            x, shape = add(g, x, shape, other, other_shape)
        else:
            x, shape = layer(g, x, shape, entry[0])
    g.nodes[-1].output[0] = "descriptor"
    graph = helper.make_graph(
        g.nodes, "dlib_face_recognition_resnet_model_v1",
        [helper.make_tensor_value_info("chip", TensorProto.FLOAT, [1, 3, side, side])],
        [helper.make_tensor_value_info("descriptor", TensorProto.FLOAT, [1, shape[0]])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="descriptor_model.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    tmp = out + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    convert(*sys.argv[1:])
