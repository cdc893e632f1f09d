// A fixed-size face network made size-free in memory: see sizefree.hpp.
//
// The edit is done on the protobuf wire format directly (the project links
// no protobuf library): a message is a run of fields, each a varint key
// (field number << 3 | wire type) and a value, a varint (type 0), 8 bytes
// (1), a varint length and that many bytes (2: strings, bytes, nested
// messages), or 4 bytes (5). Fields are copied byte for byte unless they
// are on the path to a shape; a nested message that changes is written
// again with its new length. The field numbers are onnx.proto's.
#include "sizefree.hpp"

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace cfacedetect {
namespace {

// onnx.proto's field numbers on the path to a shape.
enum : uint32_t {
    ModelGraph = 7,               // ModelProto.graph
    GraphInitializer = 5,         // GraphProto.initializer (TensorProto)
    GraphInput = 11,              // GraphProto.input (ValueInfoProto)
    GraphOutput = 12,             // GraphProto.output
    GraphValueInfo = 13,          // GraphProto.value_info
    TensorName = 8,               // TensorProto.name
    ValueName = 1,                // ValueInfoProto.name
    ValueType = 2,                // ValueInfoProto.type (TypeProto)
    TypeTensor = 1,               // TypeProto.tensor_type (TypeProto.Tensor)
    TensorShape = 2,              // TypeProto.Tensor.shape (TensorShapeProto)
    ShapeDim = 1,                 // TensorShapeProto.dim (Dimension)
    DimValue = 1,                 // Dimension.dim_value (int64)
    DimParam = 2,                 // Dimension.dim_param (string)
};

enum Wire : uint32_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

// Bytes that are not a well-formed message.
struct Malformed {};

// One field of a message: its number and wire type, its bytes as a whole
// (key included), and its value (a varint's, or a length-delimited one's bytes).
struct Field {
    uint32_t number = 0;
    uint32_t wire = 0;
    std::string_view whole;
    uint64_t value = 0;
    std::string_view bytes;
};

uint64_t varint(std::string_view data, size_t &at) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (at >= data.size()) throw Malformed{};
        const auto byte = static_cast<uint8_t>(data[at++]);
        value |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return value;
    }
    throw Malformed{};
}

// The fields of `message`, in order.
std::vector<Field> fields(std::string_view message) {
    std::vector<Field> all;
    size_t at = 0;
    while (at < message.size()) {
        const size_t start = at;
        const uint64_t key = varint(message, at);
        Field f;
        f.number = static_cast<uint32_t>(key >> 3);
        f.wire = static_cast<uint32_t>(key & 7);
        if (f.number == 0 || (key >> 3) > 0x1fffffff) throw Malformed{};
        size_t skip = 0;
        switch (f.wire) {
        case Varint: f.value = varint(message, at); break;
        case Fixed64: skip = 8; break;
        case Fixed32: skip = 4; break;
        case Bytes: f.value = varint(message, at); skip = static_cast<size_t>(f.value); break;
        default: throw Malformed{}; // groups (3, 4): onnx.proto has none
        }
        if ((f.wire == Bytes && f.value > message.size()) || skip > message.size() - at) throw Malformed{};
        if (f.wire == Bytes) f.bytes = message.substr(at, skip);
        at += skip;
        f.whole = message.substr(start, at - start);
        all.push_back(f);
    }
    return all;
}

void putVarint(std::string &out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

void putBytes(std::string &out, uint32_t number, std::string_view bytes) {
    putVarint(out, (static_cast<uint64_t>(number) << 3) | Bytes);
    putVarint(out, bytes.size());
    out.append(bytes);
}

// The first length-delimited field `number` of `message`; empty if none.
std::string_view first(std::string_view message, uint32_t number) {
    for (const Field &f : fields(message))
        if (f.number == number && f.wire == Bytes) return f.bytes;
    return {};
}

// `message` with each length-delimited field `number` replaced by
// `edit(its bytes)`; every other field as it was.
template <typename Edit> std::string edited(std::string_view message, uint32_t number, Edit edit) {
    std::string out;
    for (const Field &f : fields(message)) {
        if (f.number == number && f.wire == Bytes) {
            putBytes(out, number, edit(f.bytes));
        } else {
            out.append(f.whole);
        }
    }
    return out;
}

// A dimension of a tensor shape: its fixed size (> 0), or 0 when symbolic or unknown.
int64_t fixedSize(std::string_view dimension) {
    int64_t size = 0;
    for (const Field &f : fields(dimension)) {
        if (f.number == DimValue && f.wire == Varint) size = static_cast<int64_t>(f.value);
        if (f.number == DimParam) size = 0;
    }
    return size > 0 ? size : 0;
}

std::string sizeDim(int64_t size) {
    std::string out;
    putVarint(out, (static_cast<uint64_t>(DimValue) << 3) | Varint);
    putVarint(out, static_cast<uint64_t>(size));
    return out;
}

std::string namedDim(const std::string &name) {
    std::string out;
    putBytes(out, DimParam, name);
    return out;
}

// The dimensions of a ValueInfoProto's tensor shape (each a Dimension's bytes).
std::vector<std::string_view> dims(std::string_view value) {
    std::string_view shape = first(first(first(value, ValueType), TypeTensor), TensorShape);
    std::vector<std::string_view> all;
    for (const Field &f : fields(shape))
        if (f.number == ShapeDim && f.wire == Bytes) all.push_back(f.bytes);
    return all;
}

// `value` (a ValueInfoProto) with its shape's dimensions `replaced`.
std::string reshaped(std::string_view value, const std::vector<std::string> &replaced) {
    return edited(value, ValueType, [&](std::string_view type) {
        return edited(type, TypeTensor, [&](std::string_view tensor) {
            return edited(tensor, TensorShape, [&](std::string_view) {
                std::string shape;
                for (const auto &d : replaced) putBytes(shape, ShapeDim, d);
                return shape;
            });
        });
    });
}

std::string copied(std::string_view d) { return std::string(d); }

// An output of the network at any size: batch 1, the dimensions that follow
// the image's size symbolic (a YuNet output's cells, named after its
// stride as scripts/yunet_model.py names them; a CenterFace map's rows and columns).
std::string freeOutput(std::string_view value) {
    const auto old = dims(value);
    const std::string name(first(value, ValueName));
    std::vector<std::string> now;
    for (auto d : old) now.push_back(copied(d));
    if (old.size() == 3) {
        const size_t cut = name.find('_');
        now[1] = namedDim("cells_" + (cut == std::string::npos ? name : name.substr(cut + 1)));
    } else if (old.size() == 4) {
        now[2] = namedDim("rows");
        now[3] = namedDim("cols");
    } else {
        throw std::runtime_error("its output '" + name + "' has " + std::to_string(old.size()) +
                                 " dimensions, neither N x cells x values nor N x C x rows x cols");
    }
    now[0] = sizeDim(1);
    return reshaped(value, now);
}

// The graph's image input made 1 x C x height x width.
std::string freeInput(std::string_view value) {
    const auto old = dims(value);
    return reshaped(value, {sizeDim(1), copied(old[1]), namedDim("height"), namedDim("width")});
}

// The graph at any size, or empty when it has no image input of fixed size.
std::string freeGraph(std::string_view graph) {
    std::set<std::string_view> weights;
    std::vector<std::string_view> images;
    for (const Field &f : fields(graph)) {
        if (f.wire != Bytes) continue;
        if (f.number == GraphInitializer) weights.insert(first(f.bytes, TensorName));
    }
    for (const Field &f : fields(graph))
        if (f.number == GraphInput && f.wire == Bytes && !weights.count(first(f.bytes, ValueName)))
            images.push_back(f.bytes);
    if (images.size() != 1) return {};
    const auto shape = dims(images[0]);
    if (shape.size() != 4 || (fixedSize(shape[2]) == 0 && fixedSize(shape[3]) == 0)) return {};
    std::string out;
    for (const Field &f : fields(graph)) {
        const bool bytes = f.wire == Bytes;
        if (bytes && f.number == GraphValueInfo) continue;
        if (bytes && f.number == GraphInput) {
            if (weights.count(first(f.bytes, ValueName))) continue;
            putBytes(out, GraphInput, freeInput(f.bytes));
        } else if (bytes && f.number == GraphOutput) {
            putBytes(out, GraphOutput, freeOutput(f.bytes));
        } else {
            out.append(f.whole);
        }
    }
    return out;
}

} // namespace

bool sizeFreeModel(const std::string &bytes, std::string &out) {
    try {
        std::string_view graph;
        for (const Field &f : fields(bytes))
            if (f.number == ModelGraph && f.wire == Bytes) graph = f.bytes;
        if (graph.empty()) return false;
        const std::string free = freeGraph(graph);
        if (free.empty()) return false;
        out = edited(bytes, ModelGraph, [&](std::string_view) { return free; });
        return true;
    } catch (const Malformed &) {
        return false;
    }
}

} // namespace cfacedetect
