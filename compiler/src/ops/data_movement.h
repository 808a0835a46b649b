// The index rules of the host's data-movement operators, for any element type: the int8
// execution of the operator table (slice.cc, channel_shuffle.cc) and the float interpreter
// (float_graph.cc) move the values the same way, so their float and int8 forms cannot drift.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

namespace vta::compiler::ops {

// A box of an NCHW tensor: begins and ends (exclusive) of C, H and W, step 1.
struct SliceBox {
  std::array<int, 3> begin{}, end{};
};

// The input channel that output channel `o` of a channel shuffle of `c` channels in `groups`
// groups reads: the channels viewed as groups x c/groups, transposed, flattened again (o = j *
// groups + i reads i * c/groups + j).
inline int shuffled_channel(int o, int c, int groups) {
  return (o % groups) * (c / groups) + o / groups;
}

// `in` (n x c x hw) with its channels shuffled in `groups` groups.
template <typename T>
std::vector<T> shuffle_channels(const std::vector<T>& in, int n, int c, size_t hw, int groups) {
  std::vector<T> out(in.size());
  for (size_t b = 0; b < size_t(n); ++b) {
    for (int o = 0; o < c; ++o) {
      const size_t from = (b * size_t(c) + size_t(shuffled_channel(o, c, groups))) * hw;
      const size_t to = (b * size_t(c) + size_t(o)) * hw;
      std::copy(in.begin() + long(from), in.begin() + long(from + hw), out.begin() + long(to));
    }
  }
  return out;
}

// The values of `box` of `in` (n x c x h x w), in NCHW order; a box reaching past the input
// (a begin below 0, an end beyond the size: ONNX Pad with zeros) reads zeros there (T{}: the
// int8 zero of a symmetric scale is the float zero).
template <typename T>
std::vector<T> slice_box(const std::vector<T>& in, int n, int c, int h, int w,
                         const SliceBox& box) {
  const int ow = box.end[2] - box.begin[2];
  const int x0 = std::clamp(box.begin[2], 0, w), x1 = std::clamp(box.end[2], 0, w);
  std::vector<T> out;
  out.reserve(size_t(n) * size_t(box.end[0] - box.begin[0]) * size_t(box.end[1] - box.begin[1]) *
              size_t(ow));
  for (size_t b = 0; b < size_t(n); ++b) {
    for (int ch = box.begin[0]; ch < box.end[0]; ++ch) {
      for (int y = box.begin[1]; y < box.end[1]; ++y) {
        if (ch < 0 || ch >= c || y < 0 || y >= h || x0 >= x1) {
          out.insert(out.end(), size_t(ow), T{});
          continue;
        }
        const size_t row = ((b * size_t(c) + size_t(ch)) * size_t(h) + size_t(y)) * size_t(w);
        out.insert(out.end(), size_t(x0 - box.begin[2]), T{});
        out.insert(out.end(), in.begin() + long(row + size_t(x0)),
                   in.begin() + long(row + size_t(x1)));
        out.insert(out.end(), size_t(box.end[2] - x1), T{});
      }
    }
  }
  return out;
}

// The most zeros a box may reach past either side of an axis (a Pad's, as the importer's
// largest dimension).
inline constexpr int kMaxBoxPad = 65535;

// Whether the box begin..end of an axis of `size` is non-empty and within kMaxBoxPad of it.
inline bool box_fits(int begin, int end, int size) {
  return begin < end && begin >= -kMaxBoxPad && end <= size + kMaxBoxPad && begin < size && end > 0;
}

}  // namespace vta::compiler::ops
