// Every JSON the project reads rejects non-integers and out-of-range numbers by key (one
// checked-read helper, vta/sim/json_read.h), instead of narrowing them: 4294967303 is not 7,
// 7.9 is not 7.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/scheduling/workload.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/json_read.h"

using namespace vta;
using Catch::Matchers::Equals;
using nlohmann::json;

TEST_CASE("json_int: integers in range pass, everything else names the value", "[json]") {
  CHECK(json_int(json(-5), "k", -5, 5) == -5);
  CHECK(json_int32(json(2147483647), "k") == 2147483647);
  REQUIRE_THROWS_WITH(json_int(json(7.9), "f: key 'k'", 0, 10),
                      Equals("f: key 'k' must be an integer, got 7.9"));
  REQUIRE_THROWS_WITH(json_int(json("7"), "f: key 'k'", 0, 10),
                      Equals("f: key 'k' must be an integer, got \"7\""));
  REQUIRE_THROWS_WITH(json_int32(json(4294967303ull), "f: key 'k'"),
                      Equals("f: key 'k' = 4294967303 is out of range [-2147483648, 2147483647]"));
  REQUIRE_THROWS_WITH(json_int(json(18446744073709551615ull), "f: key 'k'", 0, INT64_MAX),
                      Equals("f: key 'k' = 18446744073709551615 is out of range [0, "
                             "9223372036854775807]"));
  REQUIRE_THROWS_WITH(json_bool(json(1), "f: key 'b'"),
                      Equals("f: key 'b' must be true or false, got 1"));
}

TEST_CASE("schedules, epilogues and networks reject narrowed numbers by key", "[json]") {
  using compiler::ConvSchedule;
  using compiler::Epilogue;
  using compiler::Network;
  const json sched = {{"tile_h", 4294967303ull},
                      {"tile_w", 14},
                      {"tile_oc_blocks", 1},
                      {"tile_ic_blocks", 1},
                      {"threads", 2}};
  REQUIRE_THROWS_WITH(ConvSchedule::from_json(sched, "s.json"),
                      Equals("s.json: schedule key 'tile_h' = 4294967303 is out of range "
                             "[-2147483648, 2147483647]"));
  json frac = sched;
  frac["tile_h"] = 7.9;
  REQUIRE_THROWS_WITH(ConvSchedule::from_json(frac, "s.json"),
                      Equals("s.json: schedule key 'tile_h' must be an integer, got 7.9"));
  REQUIRE_THROWS_WITH(Epilogue::from_json(json{{"shift", 7.5}}, "e.json"),
                      Equals("e.json: epilogue key 'shift' must be an integer, got 7.5"));
  const json net = {
      {"name", "n"},
      {"input", {{"c", 16}, {"h", 8}, {"w", 8}}},
      {"layers", {{{"name", "conv"}, {"op", "conv2d"}, {"input", "data"}, {"k", 4294967320ull}}}}};
  REQUIRE_THROWS_WITH(Network::from_json(net, "n.json"),
                      Equals("n.json: layer 'conv' key 'k' = 4294967320 is out of range "
                             "[-2147483648, 2147483647]"));
  json pad = net;
  pad["layers"][0]["k"] = 16;
  pad["layers"][0]["pad"] = json::array({1, 2.5});
  REQUIRE_THROWS_WITH(Network::from_json(pad, "n.json"),
                      Equals("n.json: layer 'conv' key 'pad'[1] must be an integer, got 2.5"));
}

TEST_CASE("the config parser keeps its wording through the helper", "[json]") {
  json j = HwConfig::from_env().to_json();
  j["LOG_BLOCK"] = 4.5;
  REQUIRE_THROWS_AS(HwConfig::from_json(j, "c.json"), ConfigError);
  REQUIRE_THROWS_WITH(HwConfig::from_json(j, "c.json"),
                      Equals("c.json: key 'LOG_BLOCK' must be an integer, got 4.5"));
}
