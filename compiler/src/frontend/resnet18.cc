// The built-in ResNet-18 network (Network::resnet18).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "vta/compiler/frontend/network.h"

namespace vta::compiler {

namespace {

int shift_for_fan_in(int fan_in) {
  // Keeps the shifted accumulator of random int8 weights around +-40 (see network.h).
  return std::clamp(int(std::lround(std::log2(std::sqrt(double(fan_in)) * 83.0))), 0, 31);
}

}  // namespace

Network Network::resnet18(int n) {
  Network net;
  net.name = "resnet18";
  net.seed = 18;
  net.n = n, net.c = 3, net.h = net.w = 224;
  auto conv = [&](const std::string& name, const std::string& input, int cin, int k, int kernel,
                  int stride, bool relu, const std::string& residual = "") {
    NetworkLayer l;
    l.name = name, l.op = "conv2d", l.input = input, l.residual = residual, l.k = k;
    l.kh = l.kw = kernel, l.stride_h = l.stride_w = stride;
    l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = kernel / 2;
    l.epilogue.shift = shift_for_fan_in(cin * kernel * kernel);
    l.epilogue.residual = !residual.empty();
    if (relu) {
      l.epilogue.relu = true;
    } else {
      l.epilogue.clip_lo = -128;
    }
    l.epilogue.clip_hi = 127;
    net.layers.push_back(l);
  };
  conv("C1", "data", 3, 64, 7, 2, true);
  NetworkLayer pool;
  pool.name = "pool1", pool.op = "maxpool", pool.input = "C1";
  pool.kh = pool.kw = 3, pool.stride_h = pool.stride_w = 2;
  pool.pad_top = pool.pad_left = pool.pad_bottom = pool.pad_right = 1;
  net.layers.push_back(pool);
  std::string x = "pool1";
  int cin = 64;
  const int widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    const int cout = widths[stage];
    for (int block = 0; block < 2; ++block) {
      const std::string p = fmt::format("layer{}.{}", stage + 1, block);
      const int stride = (stage > 0 && block == 0) ? 2 : 1;
      std::string shortcut = x;
      if (stride != 1 || cin != cout) {
        conv(p + ".down", x, cin, cout, 1, stride, false);
        shortcut = p + ".down";
      }
      conv(p + ".conv1", x, cin, cout, 3, stride, true);
      conv(p + ".conv2", p + ".conv1", cout, cout, 3, 1, true, shortcut);
      x = p + ".conv2";
      cin = cout;
    }
  }
  NetworkLayer gap;
  gap.name = "avgpool", gap.op = "global_avgpool", gap.input = x;
  net.layers.push_back(gap);
  NetworkLayer fc;
  fc.name = "fc", fc.op = "dense", fc.input = "avgpool", fc.units = 1000;
  fc.epilogue.shift = shift_for_fan_in(512);
  fc.epilogue.clip_lo = -128;
  fc.epilogue.clip_hi = 127;
  net.layers.push_back(fc);
  return net;
}

}  // namespace vta::compiler
