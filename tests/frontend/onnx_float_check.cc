// Checks the front end's float interpreter against an independent reference (torch's output of
// the same model, written by the test): imports MODEL.onnx, runs it in float on IN.f32 (raw
// float32 NCHW) and compares with EXPECTED.f32 element by element.
//
//   onnx_float_check MODEL.onnx IN.f32 EXPECTED.f32 TOLERANCE
//
// Passes when every |out - expected| <= TOLERANCE * max(1, max |expected|); prints the error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "vta/compiler/frontend/float_graph.h"
#include "vta/compiler/frontend/onnx_import.h"
#include "vta/compiler/frontend/quantize.h"
#include "vta/sim/error.h"

namespace {

std::vector<float> read_floats(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::string b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: onnx_float_check MODEL.onnx IN.f32 EXPECTED.f32 TOLERANCE\n");
    return 2;
  }
  try {
    using namespace vta::compiler;
    const FloatGraph g = import_onnx(argv[1]);
    const FloatTensor in = read_float_input(g, argv[2]);
    const std::vector<float> expected = read_floats(argv[3]);
    const auto tensors = run_float(g, in);
    const FloatTensor& out = tensors.at(g.output);
    if (out.data.size() != expected.size()) {
      std::fprintf(stderr, "FAIL: %zu output values, torch has %zu\n", out.data.size(),
                   expected.size());
      return 1;
    }
    double err = 0, mag = 1;
    for (size_t i = 0; i < expected.size(); ++i) {
      err = std::max(err, std::fabs(double(out.data[i]) - expected[i]));
      mag = std::max(mag, std::fabs(double(expected[i])));
    }
    const double tol = std::stod(argv[4]) * mag;
    std::printf("%s: %zu outputs (%s), max |float - torch| = %.3g (tolerance %.3g)\n", argv[1],
                expected.size(), out.shape().c_str(), err, tol);
    return err <= tol ? 0 : 1;
  } catch (const vta::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
