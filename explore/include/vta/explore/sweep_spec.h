// A design-space sweep as described by a JSON spec (configs/sweeps/README.md has the format):
// the base config, the axes (config key -> values or a range; full grid), explicit points, a
// seeded random sample of the grid, constraints on the keys, the workloads, the backend and the
// schedule. Parsing checks everything that can be checked without simulating and throws
// SpecError naming the spec file and the key; expand() turns the spec into design points.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/explore/constraint_expr.h"
#include "vta/explore/sweep_workload.h"
#include "vta/sim/error.h"

namespace vta::explore {

// A sweep spec that cannot describe a sweep (exit status 2 of `vtasim sweep`).
class SpecError : public Error {
 public:
  explicit SpecError(const std::string& what) : Error(what) {}
};

struct SweepAxis {
  std::string key;
  std::vector<nlohmann::json> values;
};

struct SweepSample {
  size_t count = 0;
  uint64_t seed = 1;
};

struct SweepSpec {
  std::string source;        // the spec file (error messages)
  std::string name;          // "name", else the file name without ".json"
  std::string base;          // preset name or config path (resolved against the spec's folder)
  nlohmann::json base_keys;  // the base config's keys (its "base" chain merged)
  std::vector<SweepAxis> axes;
  std::vector<nlohmann::json> points;  // override objects
  std::optional<SweepSample> sample;
  std::vector<ConstraintExpr> constraints;
  std::vector<SweepWorkload> workloads;
  std::string backend = "cycle";
  std::string schedule = "auto";  // "auto" or "tune:N"
  size_t tune = 0;                // N of "tune:N"
  bool check = true;              // compare every layer with the C++ reference
  uint64_t seed = 1;              // data seed of conv2d / matmul workloads
  // network:MODEL.onnx workloads: "calib" (1..1000, default 4) and "quant" ("max" or
  // "percentile") of the quantization, and "input" (a raw float32 file of the model's input
  // shape: the first calibration sample and the input the network runs on), as the options of
  // `vtasim network MODEL.onnx`; input_id is the short hash of the input file's bytes.
  compiler::QuantOptions quant;
  std::string input, input_id;
  // How a design of several cores runs a workload (docs/multicore.md): "replicated" (default:
  // the same program on every core, one copy each) or "split" (the compiler splits the layer or
  // network over the cores, `--split auto`); an axis or a point may set it per design.
  std::string multicore_mode = "replicated";

  static SweepSpec from_file(const std::string& path);
  // `dir` resolves relative paths (base config, network files).
  static SweepSpec from_json(const nlohmann::ordered_json& j, const std::string& source,
                             const std::string& dir);
};

// One design: the keys that differ from the base, and the complete keys (base + overrides).
struct DesignPoint {
  size_t index = 0;          // position in the expanded sweep (stable: shards use it)
  nlohmann::json overrides;  // key -> value (config keys)
  nlohmann::json keys;       // every config key
  // "replicated" or "split" (kMulticoreModeKey: the spec's, its axis' or the point's); not a
  // config key.
  std::string multicore_mode = "replicated";
  // 12 hex digits identifying `keys` (valid or not) and, in the split mode only, the mode (so a
  // replicated point keeps the id it had before the split mode existed).
  std::string id;
};

// The sweep's design points, in a fixed order: the grid (first axis slowest) or its seeded
// sample, then the explicit points; points violating a constraint are dropped, duplicates kept
// once. Held compactly (8 bytes a kept point: its position in the grid or among the explicit
// points); a point's keys are built when it is asked for, so a grid of 10^7 points needs no
// more than a few tens of MB. Throws SpecError when a constraint cannot be evaluated on a point.
class DesignSpace {
 public:
  explicit DesignSpace(const SweepSpec& spec);
  size_t size() const { return m_sources.size(); }
  DesignPoint point(size_t index) const;

 private:
  nlohmann::json overrides_of(uint64_t source) const;

  const SweepSpec& m_spec;
  uint64_t m_grid = 0;              // grid points; sources >= m_grid are explicit points
  std::vector<uint64_t> m_sources;  // kept points, in sweep order
};

// The PRECISION axis and point key: element widths by name instead of the three log2 keys.
// "intN" sets LOG_INP_WIDTH = LOG_WGT_WIDTH = log2 N and LOG_ACC_WIDTH = 5 (int32);
// "intI/intW/intA" sets the three (N, I, W, A powers of two in 1..64). Whether the widths are
// legal is the config's business (an invalid row), not the spec's.
inline constexpr const char* kPrecisionKey = "PRECISION";
// The three width keys of a PRECISION value; SpecError (naming `where`) for another spelling.
nlohmann::json precision_keys(const nlohmann::json& value, const std::string& where);
// The `precision` column of a design: "int8" when inputs and weights have one width and the
// accumulator is int32, else "int4/int4/int16"; null when a width key is missing.
nlohmann::json precision_label(const nlohmann::json& keys);

// The multicore_mode key (top level, axis or point): how a system runs a workload. A value
// other than kMulticoreModes is a SpecError naming `where`, the value and the modes.
inline constexpr const char* kMulticoreModeKey = "multicore_mode";
inline constexpr const char* kMulticoreModes[] = {"replicated", "split"};
std::string multicore_mode_of(const nlohmann::json& value, const std::string& where);

// Every point of DesignSpace(spec), materialised (small sweeps, tests).
std::vector<DesignPoint> expand(const SweepSpec& spec);
// The grid size before constraints and sampling (the product of the axis lengths; 1 if none).
size_t grid_size(const SweepSpec& spec);

}  // namespace vta::explore
