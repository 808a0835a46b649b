// What the element-width tests of layers and networks share (test_widths_layers.cc,
// test_widths_network.cc, test_widths_network_int16.cc): the seed, and the network of VTA
// convolutions (a residual one), host operators and a dense layer that each width runs with
// shifts and clip bounds of its own lane.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "vta/compiler/frontend/network.h"

// A fixed seed `fixed`, or $VTA_WIDTHS_SEED to try others; printed with the test's name.
inline uint64_t widths_test_seed(const char* test, uint64_t fixed) {
  const char* env = std::getenv("VTA_WIDTHS_SEED");
  const uint64_t seed = env ? std::strtoull(env, nullptr, 10) : fixed;
  std::printf("%s seed %llu\n", test, static_cast<unsigned long long>(seed));
  return seed;
}

// The lane-dependent numbers of widths_test_network: the output lane's bounds, each layer's
// right shift and the residual conv's upper clip bound.
struct WidthsNetworkLanes {
  std::string name;
  int hw = 8;  // input height and width (3 channels)
  int lane_lo = -128, lane_hi = 127;
  int stem_shift = 0, c1_shift = 0, c2_shift = 0, fc_shift = 0;
  int c2_clip_hi = 127;
};

// stem conv (ReLU) -> maxpool -> c1 conv (bias) -> c2 conv (residual pool, ReLU) -> host add
// (c2 + c1) -> global average pool -> dense (bias); random weights and input from `seed`.
inline vta::compiler::Network widths_test_network(const WidthsNetworkLanes& l, uint64_t seed) {
  using nlohmann::json;
  const json conv = {{"op", "conv2d"}, {"k", 16}, {"kernel", 3}, {"pad", 1}};
  auto layer = [](json base, json fields) {
    base.update(fields);
    return base;
  };
  const json bounds = {{"clip_lo", l.lane_lo}, {"clip_hi", l.lane_hi}};
  json j;
  j["name"] = l.name;
  j["input"] = {{"name", "data"}, {"n", 1}, {"c", 3}, {"h", l.hw}, {"w", l.hw}};
  j["layers"] = {
      layer(conv,
            {{"name", "stem"},
             {"input", "data"},
             {"epilogue", {{"shift", l.stem_shift}, {"relu", true}, {"clip_hi", l.lane_hi}}}}),
      {{"name", "pool"}, {"op", "maxpool"}, {"input", "stem"}, {"kernel", 2}, {"stride", 2}},
      layer(conv, {{"name", "c1"},
                   {"input", "pool"},
                   {"epilogue", layer(bounds, {{"bias", true}, {"shift", l.c1_shift}})}}),
      layer(conv,
            {{"name", "c2"},
             {"input", "c1"},
             {"residual", "pool"},
             {"epilogue", {{"shift", l.c2_shift}, {"relu", true}, {"clip_hi", l.c2_clip_hi}}}}),
      {{"name", "sum"},
       {"op", "add"},
       {"input", "c2"},
       {"residual", "c1"},
       {"epilogue", json::object()}},
      {{"name", "gap"}, {"op", "global_avgpool"}, {"input", "sum"}},
      {{"name", "fc"},
       {"op", "dense"},
       {"input", "gap"},
       {"units", 10},
       {"epilogue", layer(bounds, {{"bias", true}, {"shift", l.fc_shift}})}}};
  j["seed"] = seed;
  return vta::compiler::Network::from_json(j, l.name);
}
