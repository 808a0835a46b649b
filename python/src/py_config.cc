#include "py_config.h"

#include <fmt/format.h>

#include "py_common.h"
#include "vta/sim/config_source.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

namespace vta::py {

namespace {

// A preset name or a config file (which may start from another with "base"), resolved as the
// CLI resolves --config (sim/config_source.h).
HwConfig from_name_or_path(const std::string& v) {
  return resolve_config(v, {}).config;
}

pyb::dict derived_values(const HwConfig& c) {
  pyb::dict d;
  d["batch"] = c.batch;
  d["block_in"] = c.block_in;
  d["block_out"] = c.block_out;
  d["peak_macs_per_cycle"] = c.batch * c.block_in * c.block_out;
  d["bus_bytes"] = c.bus_bytes;
  d["uop_buff_depth"] = c.uop_buff_depth;
  d["inp_buff_depth"] = c.inp_buff_depth;
  d["wgt_buff_depth"] = c.wgt_buff_depth;
  d["acc_buff_depth"] = c.acc_buff_depth;
  d["out_buff_depth"] = c.out_buff_depth;
  d["inp_elem_bytes"] = c.inp_elem_bytes;
  d["wgt_elem_bytes"] = c.wgt_elem_bytes;
  d["acc_elem_bytes"] = c.acc_elem_bytes;
  d["out_elem_bytes"] = c.out_elem_bytes;
  d["clock_mhz"] = c.clock_mhz;
  d["model_name"] = c.model_name;
  return d;
}

// Instruction field positions of the configured ISA: {"mem": {"opcode": (lo, width), ...}, ...}.
pyb::dict isa_fields(const HwConfig& c) {
  const IsaLayout l = IsaLayout::compute(c.log_uop_buff_depth, c.log_inp_buff_depth,
                                         c.log_wgt_buff_depth, c.log_acc_buff_depth);
  pyb::dict out;
  const auto add = [&](const char* kind, const std::vector<FieldPos>& fields) {
    pyb::dict d;
    for (const FieldPos& f : fields) {
      d[pyb::str(f.name)] = pyb::make_tuple(f.lo, f.width);
    }
    out[kind] = d;
  };
  add("mem", l.mem);
  add("gemm", l.gemm);
  add("alu", l.alu);
  out["uop"] = pyb::dict(pyb::arg("dst") = l.uop_dst_bits, pyb::arg("src") = l.uop_src_bits,
                         pyb::arg("wgt") = l.uop_wgt_bits);
  return out;
}

}  // namespace

HwConfig load_config(const std::string& name_or_path, const pyb::dict& overrides) {
  HwConfig base = from_name_or_path(name_or_path);
  if (overrides.empty()) {
    return base;
  }
  nlohmann::json j = base.to_json();
  for (const auto& [k, v] : overrides) {
    const std::string key = pyb::str(k);
    j[key] = from_python(v, "override " + key);
  }
  return HwConfig::from_json(j, name_or_path + " with overrides");
}

HwConfig config_arg(const pyb::handle& h) {
  if (pyb::isinstance<HwConfig>(h)) {
    return h.cast<HwConfig>();
  }
  if (pyb::isinstance<pyb::str>(h)) {
    return load_config(h.cast<std::string>(), pyb::dict());
  }
  throw Error("config: expected a vtasim.Config or a preset name / config file path");
}

void bind_config(pyb::module_& m) {
  pyb::class_<HwConfig>(m, "Config", R"doc(
A VTA hardware configuration: the upstream vta_config.json keys plus timing keys.

Config("pynq") loads a preset (see configs/), Config("my.json") a file; keyword arguments
override keys, e.g. Config("pynq", LOG_BLOCK=5, LOG_BUS_WIDTH=7). Invalid values raise
vtasim.ConfigError naming the key, with the CLI's wording.)doc")
      .def(pyb::init([](const std::string& name, const pyb::kwargs& kw) {
             return load_config(name, kw);
           }),
           pyb::arg("name_or_path") = "pynq")
      .def(
          "replace",
          [](const HwConfig& c, const pyb::kwargs& kw) {
            nlohmann::json j = c.to_json();
            for (const auto& [k, v] : kw) {
              const std::string key = pyb::str(k);
              j[key] = from_python(v, "override " + key);
            }
            return HwConfig::from_json(j, c.model_name + " with overrides");
          },
          "A copy with the given keys replaced (validated).")
      .def(
          "to_dict", [](const HwConfig& c) { return to_python(c.to_json()); },
          "The configuration keys as a dict (what a config file holds).")
      .def_property_readonly("derived", &derived_values,
                             "Derived values: block sizes, buffer depths in tiles, element bytes, "
                             "peak MACs per cycle, ...")
      .def_property_readonly("isa_fields", &isa_fields,
                             "Instruction field positions of this ISA layout: {kind: {field: "
                             "(lo, width)}} plus micro-op field widths.")
      .def_property_readonly("name", [](const HwConfig& c) { return c.model_name; })
      .def_readonly("batch", &HwConfig::batch)
      .def_readonly("block_in", &HwConfig::block_in)
      .def_readonly("block_out", &HwConfig::block_out)
      .def_readonly("bus_bytes", &HwConfig::bus_bytes)
      .def_readonly("clock_mhz", &HwConfig::clock_mhz)
      .def_readonly("uop_buff_depth", &HwConfig::uop_buff_depth)
      .def_readonly("inp_buff_depth", &HwConfig::inp_buff_depth)
      .def_readonly("wgt_buff_depth", &HwConfig::wgt_buff_depth)
      .def_readonly("acc_buff_depth", &HwConfig::acc_buff_depth)
      .def("__repr__", [](const HwConfig& c) { return fmt::format("Config('{}')", c.model_name); })
      .def("__eq__",
           [](const HwConfig& a, const HwConfig& b) { return a.to_json() == b.to_json(); });
}

}  // namespace vta::py
