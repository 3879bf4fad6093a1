#include "scheduler/costmodel/NetworkShape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace tk::costmodel {

std::string shapeError(const NetworkShape &shape) {
  for (auto [name, value] : {std::pair{"seqLen", shape.seqLen}, {"embed", shape.embed}, {"width", shape.width}})
    if (value < 1 || value > kMaxDimension) return fmt::format("{} must be between 1 and {}", name, kMaxDimension);
  if (shape.heads < 1 || shape.width % shape.heads != 0)
    return fmt::format("heads must divide the width ({})", shape.width);
  if (shape.outputs.empty() || shape.outputs.size() > static_cast<size_t>(kMaxOutputs))
    return fmt::format("a network has between 1 and {} outputs", kMaxOutputs);
  for (size_t i = 0; i < shape.outputs.size(); ++i) {
    const std::string &o = shape.outputs[i];
    if (o.empty() ||
        std::any_of(o.begin(), o.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
      return fmt::format("output name '{}' is empty or contains whitespace", o);
    if (std::find(shape.outputs.begin(), shape.outputs.begin() + i, o) != shape.outputs.begin() + i)
      return fmt::format("output '{}' appears twice", o);
  }
  if (shape.layout.find_first_of("\r\n") != std::string::npos) return "the layout signature contains a line break";
  return "";
}

std::vector<ParameterArray> parameterLayout(const NetworkShape &shape) {
  int e = shape.embed, w = shape.width;
  std::vector<ParameterArray> arrays;
  size_t offset = 0;
  auto add = [&](std::string name, int rows, int cols) {
    arrays.push_back({std::move(name), offset, rows, cols});
    offset += arrays.back().count();
  };
  add("input.weight", e, w);
  add("input.bias", 1, w);
  add("attention.qkv.weight", w, 3 * w);
  add("attention.qkv.bias", 1, 3 * w);
  add("attention.out.weight", w, w);
  add("attention.out.bias", 1, w);
  for (const char *block : {"block1", "block2"}) {
    add(fmt::format("{}.weight", block), w, w);
    add(fmt::format("{}.bias", block), 1, w);
  }
  for (const std::string &o : shape.outputs) {
    add(fmt::format("decoder.{}.weight", o), 1, w);
    add(fmt::format("decoder.{}.bias", o), 1, 1);
  }
  return arrays;
}

} // namespace tk::costmodel
