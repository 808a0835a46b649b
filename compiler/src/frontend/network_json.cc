// The network description's JSON form (network.h): the keys every layer shares, read here, and
// each operator's own keys through its entry of the operator table.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/op_common.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/reports/json_file.h"
#include "vta/sim/error.h"
#include "vta/sim/json_read.h"

namespace vta::compiler {

namespace {

// Reads an int or [a, b] pair; `what` names the key in errors.
void read_pair(const nlohmann::json& v, const std::string& what, int& a, int& b) {
  if (v.is_array() && v.size() == 2) {
    a = json_int32(v[0], what + "[0]"), b = json_int32(v[1], what + "[1]");
  } else {
    a = b = json_int32(v, what);
  }
}

void read_pad(const nlohmann::json& v, const std::string& what, NetworkLayer& l) {
  auto at = [&](size_t k) { return json_int32(v[k], fmt::format("{}[{}]", what, k)); };
  if (v.is_array() && v.size() == 4) {
    l.pad_top = at(0), l.pad_left = at(1);
    l.pad_bottom = at(2), l.pad_right = at(3);
  } else if (v.is_array() && v.size() == 2) {
    l.pad_top = l.pad_bottom = at(0);
    l.pad_left = l.pad_right = at(1);
  } else {
    l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = json_int32(v, what);
  }
}

// Throws "<where> has unknown key '<key>' (known: ...)" for the first key of `j` not in
// `known` (a typo such as "kernal" would otherwise be ignored silently).
void check_keys(const nlohmann::json& j, const std::vector<std::string>& known,
                const std::string& where) {
  if (!j.is_object()) {
    throw Error(where + " must be a JSON object");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
      std::string list;
      for (const std::string& k : known) {
        list += (list.empty() ? "" : ", ") + k;
      }
      throw Error(fmt::format("{} has unknown key '{}' (known: {})", where, it.key(), list));
    }
  }
}

// The window keys (kernel, stride, pad) and the scalar keys several operators share.
void read_shared_keys(const nlohmann::json& lj, const std::string& where, NetworkLayer& l) {
  l.residual = lj.value("residual", std::string());
  l.groups = lj.contains("groups") ? json_int32(lj["groups"], where + " 'groups'", 1) : 1;
  l.rescale = lj.contains("rescale") ? json_int32(lj["rescale"], where + " 'rescale'", -24, 24) : 0;
  l.count_include_pad = lj.contains("count_include_pad") &&
                        json_bool(lj["count_include_pad"], where + " 'count_include_pad'");
  if (lj.contains("kernel")) {
    read_pair(lj["kernel"], where + " 'kernel'", l.kh, l.kw);
  }
  if (lj.contains("stride")) {
    read_pair(lj["stride"], where + " 'stride'", l.stride_h, l.stride_w);
  }
  if (lj.contains("pad")) {
    read_pad(lj["pad"], where + " 'pad'", l);
  }
  l.k = lj.contains("k") ? json_int32(lj["k"], where + " 'k'") : 0;
  l.units = lj.contains("units") ? json_int32(lj["units"], where + " 'units'") : 0;
}

NetworkLayer read_layer(const nlohmann::json& lj, const std::string& source) {
  NetworkLayer l;
  l.name = lj.at("name").get<std::string>();
  l.op = lj.at("op").get<std::string>();
  const OpDef* def = find_op_def(l.op);
  if (!def) {
    throw Error(fmt::format("{}: layer '{}' has unknown op '{}' (known: {})", source, l.name, l.op,
                            known_op_names()));
  }
  check_keys(lj, def->json_keys, fmt::format("{}: {} layer '{}'", source, l.op, l.name));
  if (std::count(def->json_keys.begin(), def->json_keys.end(), "input")) {
    l.input = lj.at("input").get<std::string>();
  }
  read_shared_keys(lj, fmt::format("{}: layer '{}' key", source, l.name), l);
  if (lj.contains("epilogue")) {
    l.epilogue = Epilogue::from_json(lj["epilogue"], source + ": layer " + l.name);
  }
  if (lj.contains("schedule")) {
    l.schedule = ConvSchedule::from_json(lj["schedule"], source + ": layer " + l.name);
  }
  if (def->read_json) {
    def->read_json(lj, source, l);
  }
  l.epilogue.residual = !l.residual.empty();
  if (l.epilogue.residual_shift && (l.op != "conv2d" || !l.epilogue.residual)) {
    throw Error(
        fmt::format("{}: layer '{}': epilogue key 'residual_shift' needs a conv2d layer "
                    "with a 'residual'",
                    source, l.name));
  }
  return l;
}

void read_input(const nlohmann::json& in, const std::string& source, Network& net) {
  check_keys(in, {"name", "n", "c", "h", "w"}, source + ": input");
  net.input_name = in.value("name", std::string("data"));
  auto input_dim = [&](const char* key) {
    return json_int32(in.at(key), fmt::format("{}: input key '{}'", source, key));
  };
  net.n = in.contains("n") ? input_dim("n") : 1;
  net.c = input_dim("c");
  net.h = input_dim("h");
  net.w = input_dim("w");
}

}  // namespace

Network Network::from_json(const nlohmann::json& j, const std::string& source) {
  Network net;
  try {
    check_keys(j, {"name", "seed", "input", "layers"}, source);
    net.name = j.value("name", std::string("network"));
    net.seed =
        j.contains("seed")
            ? static_cast<uint64_t>(json_int(j["seed"], source + ": key 'seed'", 0, INT64_MAX))
            : 1;
    read_input(j.at("input"), source, net);
    for (const auto& lj : j.at("layers")) {
      net.layers.push_back(read_layer(lj, source));
    }
  } catch (const nlohmann::json::exception& ex) {
    throw Error(fmt::format("{}: invalid network description: {}", source, ex.what()));
  }
  try {
    net.validate();
  } catch (const Error& ex) {
    throw Error(fmt::format("{}: {}", source, ex.what()));
  }
  return net;
}

nlohmann::ordered_json Network::to_json() const {
  nlohmann::ordered_json j;
  j["name"] = name;
  j["seed"] = seed;
  j["input"] = {{"name", input_name}, {"n", n}, {"c", c}, {"h", h}, {"w", w}};
  j["layers"] = nlohmann::ordered_json::array();
  for (const NetworkLayer& l : layers) {
    const OpDef& def = op_def(l.op);
    nlohmann::ordered_json lj;
    lj["name"] = l.name;
    lj["op"] = l.op;
    lj["input"] = l.input;
    if (def.write_json) {
      def.write_json(l, lj);
    }
    if (!l.residual.empty()) {
      lj["residual"] = l.residual;
    }
    if (def.has_epilogue) {
      lj["epilogue"] = ops::epilogue_json(l.epilogue);
    }
    if (l.schedule) {
      lj["schedule"] = l.schedule->to_json();
    }
    j["layers"].push_back(lj);
  }
  return j;
}

Network Network::from_file(const std::string& path) {
  return from_json(read_json_file(path, "network"), path);
}

Network Network::load(const std::string& name_or_path) {
  if (name_or_path == "resnet18" || name_or_path == "resnet-18") {
    return resnet18();
  }
  return from_file(name_or_path);
}

}  // namespace vta::compiler
