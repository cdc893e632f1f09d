"""MediaPipe's face landmark network (Face Mesh), or its iris network, as an ONNX model, from its .tflite.

    face_mesh_model.py TFLITE OUT

TFLITE is mediapipe/modules/face_landmark/face_landmark.tflite or
mediapipe/modules/iris_landmark/iris_landmark.tflite of the mediapipe
0.10.14 wheel (scripts/fetch-face-mesh-model takes them out). The
flatbuffer is read with the `tflite` package (the TFLite schema's generated
readers) and the graph is written again operator by operator with `onnx`,
in NCHW where TFLite is NHWC:

- DEQUANTIZE of an fp16 constant: the constant as float32, folded away;
- CONV_2D: Conv, filters OHWI -> OIHW;
- DEPTHWISE_CONV_2D: Conv with one group per input channel, filters
  1 x H x W x (C * multiplier) -> (C * multiplier) x 1 x H x W;
- TFLite's SAME padding as explicit pads: in total max((ceil(n / s) - 1) s +
  k - n, 0) along an axis, the smaller half before (TensorFlow's rule); VALID
  is no padding;
- PRELU: PRelu, the alphas (1 x 1 x C) as C x 1 x 1;
- ADD, MAX_POOL_2D, PAD (its paddings reordered to NCHW), RESHAPE (the
  tensor put back in NHWC order first, so the flat order is TFLite's);
- a fused RELU / RELU6 as Relu / Clip.

The input "image" is the 192 x 192 face (the iris network: the 64 x 64
eye) as RGB 0-255 floats, 1 x 3 x H x W; the graph divides it by 255 (the
networks read 0-1, as MediaPipe's ImageToTensorCalculator gives them). The
outputs keep TFLite's shapes: the face network's "landmarks" (1 x 1 x 1 x
1404: 468 points, x y z each, in the 192 px input's pixels) and
"face_score" (1 x 1 x 1 x 1: the face-presence logit); the iris network's
"eye_contour" (1 x 213: 71 points of the eye's contour and brow, x y z, in
the 64 px input's pixels) and "iris" (1 x 15: 5 points).
"""

import math
import sys

import numpy as np
import onnx
import tflite
from onnx import TensorProto, helper, numpy_helper

OPS = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
NUMPY = {tflite.TensorType.FLOAT32: np.float32, tflite.TensorType.FLOAT16: np.float16,
         tflite.TensorType.INT32: np.int32, tflite.TensorType.INT64: np.int64}
# The outputs' names, by the input's side: the face model's and the iris model's.
OUTPUT_NAMES = {192: ["landmarks", "face_score"], 64: ["eye_contour", "iris"]}


class Reader:
    """The one subgraph of a .tflite: tensors' shapes and constant values."""

    def __init__(self, data):
        self.model = tflite.Model.GetRootAsModel(data, 0)
        if self.model.SubgraphsLength() != 1:
            sys.exit("face_mesh_model: expected one subgraph")
        self.graph = self.model.Subgraphs(0)

    def shape(self, index):
        return [int(n) for n in self.graph.Tensors(index).ShapeAsNumpy()]

    def constant(self, index):
        tensor = self.graph.Tensors(index)
        data = self.model.Buffers(tensor.Buffer()).DataAsNumpy()
        if isinstance(data, int) or tensor.Type() not in NUMPY:
            return None
        return np.frombuffer(data.tobytes(), dtype=NUMPY[tensor.Type()]).reshape(self.shape(index))

    def operator(self, i):
        op = self.graph.Operators(i)
        code = self.model.OperatorCodes(op.OpcodeIndex())
        kind = OPS[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        inputs = [op.Inputs(j) for j in range(op.InputsLength())]
        outputs = [op.Outputs(j) for j in range(op.OutputsLength())]
        return kind, op, inputs, outputs


def options(op, kind):
    table = op.BuiltinOptions()
    made = kind()
    made.Init(table.Bytes, table.Pos)
    return made


def same_pads(size, kernel, stride, dilation=1):
    """TensorFlow's SAME padding along one axis: (before, after)."""
    k = (kernel - 1) * dilation + 1
    total = max((math.ceil(size / stride) - 1) * stride + k - size, 0)
    return total // 2, total - total // 2


class Converter:
    def __init__(self, reader):
        self.r, self.nodes, self.inits, self.names, self.consts = reader, [], [], {}, {}

    def value(self, index):
        """The ONNX name of TFLite tensor `index` (a constant becomes an initializer)."""
        if index in self.names:
            return self.names[index]
        array = self.consts.get(index, self.r.constant(index))
        if array is None:
            sys.exit(f"face_mesh_model: tensor {index} has no producer")
        return self.const(f"t{index}", array.astype(np.float32) if array.dtype == np.float16 else array)

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def array(self, index):
        return self.consts.get(index, self.r.constant(index))

    def node(self, op, inputs, out, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def activation(self, name, fused, out):
        if fused == tflite.ActivationFunctionType.NONE:
            return self.node("Identity", [name], out)
        if fused == tflite.ActivationFunctionType.RELU:
            return self.node("Relu", [name], out)
        if fused == tflite.ActivationFunctionType.RELU6:
            lo, hi = self.const(out + "_lo", np.float32(0)), self.const(out + "_hi", np.float32(6))
            return self.node("Clip", [name, lo, hi], out)
        sys.exit(f"face_mesh_model: fused activation {fused} is not handled")

    def window_pads(self, padding, in_shape, kernel, strides, dilations=(1, 1)):
        if padding == tflite.Padding.VALID:
            return [0, 0, 0, 0]
        (t, b), (l, r) = (same_pads(in_shape[1], kernel[0], strides[0], dilations[0]),
                          same_pads(in_shape[2], kernel[1], strides[1], dilations[1]))
        return [t, l, b, r]

    def conv(self, op, inputs, out, depthwise):
        o = options(op, tflite.DepthwiseConv2DOptions if depthwise else tflite.Conv2DOptions)
        weights = self.array(inputs[1]).astype(np.float32)
        in_shape = self.r.shape(inputs[0])
        if depthwise:
            weights = weights.transpose(3, 0, 1, 2)  # 1 H W C*m -> C*m 1 H W
            group = in_shape[3]
        else:
            weights = weights.transpose(0, 3, 1, 2)  # O H W I -> O I H W
            group = 1
        kernel, strides = weights.shape[2:], (o.StrideH(), o.StrideW())
        dilations = (o.DilationHFactor(), o.DilationWFactor())
        args = [self.value(inputs[0]), self.const(f"t{inputs[1]}_w", weights)]
        if len(inputs) > 2 and inputs[2] >= 0:
            args.append(self.const(f"t{inputs[2]}_b", self.array(inputs[2]).astype(np.float32)))
        conv = self.node("Conv", args, out + "_conv", kernel_shape=list(kernel), strides=list(strides),
                         dilations=list(dilations), group=group,
                         pads=self.window_pads(o.Padding(), in_shape, kernel, strides, dilations))
        return self.activation(conv, o.FusedActivationFunction(), out)

    def emit(self, i):
        kind, op, inputs, outputs = self.r.operator(i)
        out = f"t{outputs[0]}"
        if kind == "DEQUANTIZE":
            self.consts[outputs[0]] = self.r.constant(inputs[0]).astype(np.float32)
            return
        if kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            self.conv(op, inputs, out, kind == "DEPTHWISE_CONV_2D")
        elif kind == "PRELU":
            alpha = self.array(inputs[1]).astype(np.float32).reshape(-1)
            self.node("PRelu", [self.value(inputs[0]), self.const(out + "_alpha", alpha.reshape(-1, 1, 1))], out)
        elif kind == "ADD":
            o = options(op, tflite.AddOptions)
            add = self.node("Add", [self.value(inputs[0]), self.value(inputs[1])], out + "_add")
            self.activation(add, o.FusedActivationFunction(), out)
        elif kind == "MAX_POOL_2D":
            o = options(op, tflite.Pool2DOptions)
            kernel, strides = (o.FilterHeight(), o.FilterWidth()), (o.StrideH(), o.StrideW())
            pool = self.node("MaxPool", [self.value(inputs[0])], out + "_pool", kernel_shape=list(kernel),
                             strides=list(strides),
                             pads=self.window_pads(o.Padding(), self.r.shape(inputs[0]), kernel, strides))
            self.activation(pool, o.FusedActivationFunction(), out)
        elif kind == "PAD":
            p = self.array(inputs[1]).astype(np.int64)  # NHWC rows of (before, after)
            order = [0, 3, 1, 2]
            pads = [p[a][0] for a in order] + [p[a][1] for a in order]
            self.node("Pad", [self.value(inputs[0]), self.const(out + "_pads", np.array(pads, np.int64))], out)
        elif kind == "RESHAPE":
            nhwc = self.value(inputs[0])
            if len(self.r.shape(inputs[0])) == 4:
                nhwc = self.node("Transpose", [nhwc], out + "_nhwc", perm=[0, 2, 3, 1])
            shape = np.array(self.r.shape(outputs[0]), np.int64)
            flat = self.node("Reshape", [nhwc, self.const(out + "_shape", shape)], out + "_flat")
            if len(shape) == 4:  # back to NCHW for what follows
                self.node("Transpose", [flat], out, perm=[0, 3, 1, 2])
            else:
                self.node("Identity", [flat], out)
        else:
            sys.exit(f"face_mesh_model: operator {kind} is not handled")
        self.names[outputs[0]] = out

    def build(self):
        g = self.r.graph
        (n, h, w, c) = self.r.shape(g.Inputs(0))
        scale = self.const("input_scale", np.float32(1 / 255))
        self.names[g.Inputs(0)] = self.node("Mul", ["image", scale], "input_01")
        for i in range(g.OperatorsLength()):
            self.emit(i)
        outputs = []
        for k in range(g.OutputsLength()):
            index, name = g.Outputs(k), OUTPUT_NAMES[h][k]
            shape = self.r.shape(index)
            if len(shape) == 4:
                self.node("Transpose", [self.value(index)], name, perm=[0, 2, 3, 1])
            else:
                self.node("Identity", [self.value(index)], name)
            outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        graph = helper.make_graph(self.nodes, "face_mesh" if h == 192 else "iris",
                                  [helper.make_tensor_value_info("image", TensorProto.FLOAT, [n, c, h, w])],
                                  outputs, self.inits)
        model = helper.make_model(graph, producer_name="facecrop face_mesh_model.py",
                                  opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        model = Converter(Reader(f.read())).build()
    with open(sys.argv[2], "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
