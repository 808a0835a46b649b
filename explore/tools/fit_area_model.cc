// fit_area_model: calibrates the area model's LUT, flip-flop and ALU-DSP coefficients on
// Yosys resource reports (scripts/synth.sh) by least squares over the features of
// vta::explore::area_features, and writes them as JSON.
//   usage: fit_area_model OUT.json REPORT.json...
// Reports whose file name starts with "val_" are held out: they are not fitted, and their errors
// are printed and stored beside the coefficients.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/explore/area_model.h"
#include "vta/sim/error.h"

namespace {

using vta::explore::area_features;

struct Sample {
  std::string name;
  vta::HwConfig config;
  nlohmann::json resources;
  bool held_out = false;
};

// Solves the normal equations (X^T X) b = X^T y by Gaussian elimination with partial pivoting.
std::vector<double> least_squares(const std::vector<std::vector<double>>& x,
                                  const std::vector<double>& y) {
  const size_t n = x.front().size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));
  for (size_t r = 0; r < x.size(); ++r) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        a[i][j] += x[r][i] * x[r][j];
      }
      a[i][n] += x[r][i] * y[r];
    }
  }
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) {
        p = r;
      }
    }
    std::swap(a[c], a[p]);
    if (std::fabs(a[c][c]) < 1e-12) {
      throw vta::Error("fit_area_model: the calibration configs do not separate the features");
    }
    for (size_t r = 0; r < n; ++r) {
      if (r != c) {
        const double f = a[r][c] / a[c][c];
        for (size_t k = c; k <= n; ++k) {
          a[r][k] -= f * a[c][k];
        }
      }
    }
  }
  std::vector<double> b(n);
  for (size_t i = 0; i < n; ++i) {
    b[i] = a[i][n] / a[i][i];
  }
  return b;
}

double feature(const vta::HwConfig& c, const std::string& name) {
  for (const auto& [n, v] : area_features(c)) {
    if (n == name) {
      return v;
    }
  }
  throw vta::Error("fit_area_model: unknown feature " + name);
}

// Fits `target(sample)` over the named features on the calibration samples.
template <class Target>
nlohmann::ordered_json fit(const std::vector<Sample>& samples,
                           const std::vector<std::string>& features, Target target) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const auto& s : samples) {
    if (s.held_out) {
      continue;
    }
    std::vector<double> row;
    for (const auto& f : features) {
      row.push_back(feature(s.config, f));
    }
    x.push_back(row);
    y.push_back(target(s));
  }
  const auto b = least_squares(x, y);
  nlohmann::ordered_json j;
  for (size_t i = 0; i < features.size(); ++i) {
    j[features[i]] = b[i];
  }
  return j;
}

// The model with the new coefficients against every report (the README's table).
void print_comparison(const std::vector<Sample>& samples, const nlohmann::json& coefficients) {
  std::cout << "| design | set | LUT Yosys / model | FF Yosys / model | DSP Yosys / model | "
               "BRAM36 Yosys / model |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& s : samples) {
    const auto m = vta::explore::estimate_area(s.config, coefficients).total;
    const auto cell = [&](const char* key, double model) {
      const double y = s.resources.at(key).get<double>();
      return fmt::format("{:.6g} / {:.6g} ({:+.1f}%)", y, model, 100 * (model / y - 1));
    };
    std::cout << fmt::format("| {} | {} | {} | {} | {} | {} |\n", s.name,
                             s.held_out ? "held out" : "fitted", cell("lut", m.lut),
                             cell("ff", m.ff), cell("dsp", m.dsp), cell("bram36", m.bram36));
  }
}

// The range of each fitted feature over the calibration designs (held-out ones excluded): the
// estimate states when a design lies outside it.
nlohmann::ordered_json calibrated_range(const std::vector<Sample>& samples) {
  nlohmann::ordered_json range;
  for (const auto& s : samples) {
    if (s.held_out) {
      continue;
    }
    for (const auto& [name, value] : vta::explore::area_features(s.config)) {
      if (name == "const" || name == "acc_lanes" || name == "alu_mul_dsp" ||
          name == "index_mul_dsp") {
        continue;
      }
      if (!range.contains(name)) {
        range[name] = {value, value};
      }
      range[name][0] = std::min(range[name][0].get<double>(), value);
      range[name][1] = std::max(range[name][1].get<double>(), value);
    }
  }
  return range;
}

std::vector<Sample> read_samples(int argc, char** argv) {
  std::vector<Sample> samples;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i]);
    const auto r = nlohmann::json::parse(in);
    Sample s;
    s.name = std::filesystem::path(argv[i]).stem().string();
    s.config = vta::HwConfig::from_json(r.at("config"), argv[i]);
    s.resources = r.at("resources");
    s.held_out = s.name.rfind("val_", 0) == 0;
    samples.push_back(s);
  }
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fit_area_model OUT.json REPORT.json...\n";
    return 2;
  }
  try {
    const auto samples = read_samples(argc, argv);
    const auto res = [](const Sample& s, const char* k) { return s.resources.at(k).get<double>(); };
    nlohmann::ordered_json out;
    // The GEMM array's DSPs are derived (vta::explore::gemm_array_dsp); the rest is the ALU's
    // MUL and the loads' index products (both derived: their coefficients should come out 1)
    // and the fixed ones.
    out["alu_dsp"] = fit(samples, {"const", "alu_mul_dsp", "index_mul_dsp"}, [&](const Sample& s) {
      return res(s, "dsp") - vta::explore::gemm_array_dsp(s.config);
    });
    for (auto& [name, coef] : out["alu_dsp"].items()) {
      coef = std::round(coef.get<double>());  // slices per lane and fixed ones: whole numbers
    }
    out["lut"] = fit(samples,
                     {"const", "macs", "acc_lane_bits", "bus_bits", "mac_add_bits", "lut_mul_bits",
                      "packed_macs", "split_macs", "sram_port_bits"},
                     [&](const Sample& s) { return res(s, "lut"); });
    out["ff"] =
        fit(samples, {"const", "macs", "wgt_bits", "acc_lane_bits", "bus_bits", "lutram_read_bits"},
            [&](const Sample& s) { return res(s, "ff"); });
    out["calibrated_range"] = calibrated_range(samples);
    std::ofstream(argv[1]) << out.dump(1) << "\n";
    print_comparison(samples, nlohmann::json::parse(out.dump()));
  } catch (const std::exception& e) {
    std::cerr << "fit_area_model: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
