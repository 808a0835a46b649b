// The scalar fields of a layer result, described once: key, unit, description and how to read
// (and, for the ones a run stores, write) them. The JSON report, the worker codec, the Python
// dicts and the sweep rows all list a LayerRun through this table, under these keys (the key
// names of report.schema.json); the text report takes its figure columns from it. Structured parts
// (schedule, epilogue, counters, bound, output) keep their own encoders.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

struct LayerField {
  const char* key;  // report / Python / sweep name
  const char* unit;
  const char* description;
  nlohmann::ordered_json (*get)(const LayerRun& r);
  // Stored in LayerRun (null: derived from other fields); the worker codec carries these.
  void (*set)(LayerRun& r, const nlohmann::json& v);
  // Whether the value means something for this run (cycles need a timed backend, mismatches a
  // check): the report leaves the key out, Python and sweep rows give None / NULL.
  bool (*applies)(const LayerRun& r);
  bool in_sweep_row;  // a figure of the sweep database (names, shapes: its own columns)
  // A figure column of the text report: header, width (right-aligned) and the cell text when
  // the field applies ("-" otherwise). Null column: not in the text table.
  const char* column = nullptr;
  int width = 0;
  std::string (*text)(const LayerRun& r) = nullptr;
};

// In report order.
const std::vector<LayerField>& layer_fields();

// The field's value for `r`, or null when it does not apply.
nlohmann::ordered_json field_value(const LayerField& f, const LayerRun& r);

}  // namespace vta::compiler
