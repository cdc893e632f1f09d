"""YuNet for ONNX Runtime at any size, made from the shipped model.

    yunet_model.py SHIPPED OUT

Run by scripts/yunet-runtime (in .venv, onnx pinned by scripts/venv or
make-centerface-models). The shipped face_detection_yunet_2023mar.onnx
declares a 1 x 3 x 640 x 640 input (and outputs of 6400, 1600 and 400 cells)
and 94 intermediate shapes for that size; its graph itself is size-free
(Reshape to [1, -1, n], Resize by scales 2). cv::dnn ignores the declared
shape; ONNX Runtime refuses any other. This keeps the graph and weights and
only makes the input 1 x 3 x height x width, the outputs' cell counts
symbolic, and drops the recorded intermediate shapes.
"""

import os
import sys

import onnx


def symbolic(shipped, out):
    model = onnx.load(shipped)
    graph = model.graph
    if len(graph.input) != 1:
        sys.exit(f"yunet_model: {shipped} has {len(graph.input)} inputs, not one image")
    dims = graph.input[0].type.tensor_type.shape.dim
    for dim, name in ((dims[2], "height"), (dims[3], "width")):
        dim.Clear()
        dim.dim_param = name
    for output in graph.output:
        cells = output.type.tensor_type.shape.dim[1]
        cells.Clear()
        cells.dim_param = "cells_" + output.name.split("_")[1]
    del graph.value_info[:]
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model, full_check=True)
    tmp = out + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    symbolic(sys.argv[1], sys.argv[2])
