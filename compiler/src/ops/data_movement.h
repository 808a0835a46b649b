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

// The values of `box` of `in` (n x c x h x w), in NCHW order.
template <typename T>
std::vector<T> slice_box(const std::vector<T>& in, int n, int c, int h, int w,
                         const SliceBox& box) {
  std::vector<T> out;
  out.reserve(size_t(n) * size_t(box.end[0] - box.begin[0]) * size_t(box.end[1] - box.begin[1]) *
              size_t(box.end[2] - box.begin[2]));
  for (size_t b = 0; b < size_t(n); ++b) {
    for (int ch = box.begin[0]; ch < box.end[0]; ++ch) {
      for (int y = box.begin[1]; y < box.end[1]; ++y) {
        const size_t row = ((b * size_t(c) + size_t(ch)) * size_t(h) + size_t(y)) * size_t(w);
        out.insert(out.end(), in.begin() + long(row + size_t(box.begin[2])),
                   in.begin() + long(row + size_t(box.end[2])));
      }
    }
  }
  return out;
}

}  // namespace vta::compiler::ops
