#include "vta/compiler/frontend/quantize.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <set>

#include <fmt/format.h>

#include "ir/shape_inference.h"
#include "vta/compiler/frontend/onnx_import.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/sim/error.h"
#include "vta/sim/input_file.h"

namespace vta::compiler {

namespace {

// Exponents e (value = q * 2^-e) lie in -24..24. The int8 arithmetic never sees e itself, only
// differences: a layer's shift e_in + e_w - e_out is held in 0..31 by lowering e_w, its int32
// bias is checked at 2^(e_in + e_w) (a lower e_in only shrinks it) and the residual and clip
// bounds are int8 at e_out. What bounds e are the exponents written into the network: the host
// operators' in_exp / out_exp / a_exp / b_exp and the pools' rescale accept -24..24
// (ops/op_common.cc exponent_attr, network_json.cc). 127 x 2^24 < 2^31 also keeps every
// dequantized value an int32.
constexpr int kMaxExp = 24;   // at most 2^24 quantization steps per unit
constexpr int kMinExp = -24;  // at most 127 x 2^24 (about 2.1e9)

// One network layer: a main node with the activation (and the residual add) fused into it.
struct PlannedLayer {
  size_t main = 0;
  const GraphNode* add = nullptr;  // a Conv's fused residual add
  std::string residual;            // its other operand (float tensor)
  const GraphNode* act = nullptr;  // fused Relu / Clip
  size_t last = 0;                 // index of the last fused node (the layer's place)
  std::string out;                 // float tensor the layer produces
};

bool is_activation(const GraphNode& n) {
  return n.op == GraphOp::kRelu || n.op == GraphOp::kClip;
}

// The node that alone consumes `tensor`, if any (the graph output counts as a consumer).
const GraphNode* only_consumer(const FloatGraph& g,
                               const std::map<std::string, std::vector<size_t>>& consumers,
                               const std::string& tensor, size_t& index) {
  auto it = consumers.find(tensor);
  if (tensor == g.output || it == consumers.end() || it->second.size() != 1) {
    return nullptr;
  }
  index = it->second[0];
  return &g.nodes[index];
}

// Groups the nodes into layers: Conv [+ Add] [+ Relu/Clip], Gemm [+ Relu/Clip],
// Add [+ Relu/Clip], and every other node alone; sorted by the place of their last node.
std::vector<PlannedLayer> plan_layers(const FloatGraph& g) {
  std::map<std::string, std::vector<size_t>> consumers;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      consumers[in].push_back(i);
    }
  }
  std::vector<bool> absorbed(g.nodes.size(), false);
  std::vector<PlannedLayer> layers;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (absorbed[i]) {
      continue;
    }
    const GraphNode& n = g.nodes[i];
    if (is_activation(n)) {
      throw Error(
          fmt::format("node '{}' ({}): only a Relu / Clip right after a Conv, Gemm or Add "
                      "(its only consumer) is supported: it is fused into that layer",
                      n.name, graph_op_name(n.op)));
    }
    PlannedLayer l{i, nullptr, {}, nullptr, i, n.output};
    size_t j = 0;
    if (n.op == GraphOp::kConv && n.groups == 1) {
      const GraphNode* c = only_consumer(g, consumers, l.out, j);
      if (c && !absorbed[j] && c->op == GraphOp::kAdd && c->inputs[0] != c->inputs[1]) {
        l.add = c, l.last = j, l.out = c->output, absorbed[j] = true;
        l.residual = c->inputs[0] == n.output ? c->inputs[1] : c->inputs[0];
      }
    }
    if (n.op == GraphOp::kConv || n.op == GraphOp::kGemm || n.op == GraphOp::kAdd) {
      const GraphNode* c = only_consumer(g, consumers, l.out, j);
      if (c && !absorbed[j] && is_activation(*c)) {
        l.act = c, l.last = j, l.out = c->output, absorbed[j] = true;
      }
    }
    layers.push_back(l);
  }
  std::stable_sort(layers.begin(), layers.end(),
                   [](const PlannedLayer& a, const PlannedLayer& b) { return a.last < b.last; });
  return layers;
}

// Union-find over network tensors that must share one exponent.
struct ExpGroups {
  std::map<std::string, std::string> parent;
  std::map<std::string, int> exp;  // per root
  std::string root(const std::string& t) {
    auto it = parent.find(t);
    return it == parent.end() || it->second == t ? t : (it->second = root(it->second));
  }
  void join(const std::string& a, const std::string& b) {
    const std::string ra = root(a), rb = root(b);
    if (ra != rb) {
      parent[rb] = ra;
      exp[ra] = std::min(exp[ra], exp[rb]);
    }
  }
  int& at(const std::string& t) { return exp[root(t)]; }
};

// The exponent whose lane range [-limit - 1, limit] holds `amax` (int8: 127); throws naming
// `what` for a range beyond 2^-kMinExp (tiny ranges are clamped to kMaxExp: precision, not
// correctness).
int exp_for_range(double amax, const std::string& what, int limit) {
  if (!(amax > 0)) {
    return kMaxExp;
  }
  const double e = std::floor(std::log2(double(limit) / amax));
  if (e < kMinExp) {
    throw Error(fmt::format(
        "quantization: {} reach {:g}, beyond the largest int{} range supported "
        "({} x 2^{})",
        what, amax, int(std::lround(std::log2(double(limit) + 1))) + 1, limit, -kMinExp));
  }
  return int(std::min(e, double(kMaxExp)));
}

// The calibrated magnitude of a float tensor over the samples (max or percentile of |x|).
double calibrated_range(const std::vector<std::map<std::string, FloatTensor>>& runs,
                        const std::string& t, const QuantOptions& opt) {
  std::vector<float> mags;
  double amax = 0;
  for (const auto& run : runs) {
    for (float v : run.at(t).data) {
      if (!std::isfinite(v)) {
        throw Error(
            fmt::format("quantization: tensor '{}' is not finite (inf or NaN) in the float "
                        "run of a calibration input",
                        t));
      }
      amax = std::max(amax, double(std::fabs(v)));
      if (opt.mode == "percentile") {
        mags.push_back(std::fabs(v));
      }
    }
  }
  if (opt.mode != "percentile" || mags.empty()) {
    return amax;
  }
  const size_t k =
      std::min(mags.size() - 1, size_t(double(mags.size() - 1) * opt.percentile / 100));
  std::nth_element(mags.begin(), mags.begin() + long(k), mags.end());
  return mags[k];
}

// Values at exponent e in the lane [-limit - 1, limit], as T (int8_t, or int16_t at wide lanes).
template <class T = int8_t>
std::vector<T> quantize_values(const std::vector<float>& v, int e, int limit) {
  std::vector<T> q(v.size());
  const double scale = std::ldexp(1.0, e);
  for (size_t i = 0; i < v.size(); ++i) {
    q[i] = T(std::clamp(std::lround(double(v[i]) * scale), long(-limit - 1), long(limit)));
  }
  return q;
}

// Sets the epilogue's lower / upper bounds from the fused activation at output exponent e,
// within the output lane of `bits` bits (int8: -128, 127).
void activation_bounds(const GraphNode* act, int e, int bits, Epilogue& ep) {
  const int lo = lane_min(bits), hi = lane_max(bits);
  ep.clip_lo = lo, ep.clip_hi = hi;
  if (act && act->op == GraphOp::kRelu) {
    ep.clip_lo.reset();
    ep.relu = true;
  } else if (act) {
    auto bound = [&](float v) {
      return int(std::clamp(std::round(double(v) * std::ldexp(1.0, e)), double(lo), double(hi)));
    };
    ep.clip_lo = std::isinf(act->clip_lo) ? lo : bound(act->clip_lo);
    ep.clip_hi = std::isinf(act->clip_hi) ? hi : bound(act->clip_hi);
  }
}

std::string layer_ops(const GraphNode& main, const PlannedLayer& p) {
  std::string s = graph_op_name(main.op);
  if (main.op == GraphOp::kConv && main.groups > 1) {
    s += fmt::format("(g{})", main.groups);
  }
  if (p.add) {
    s += "+Add";
  }
  if (p.act) {
    s += std::string("+") + graph_op_name(p.act->op);
  }
  return s;
}

// The state of one quantization: the graph, its layers, the calibration runs and exponents.
struct Quantizer {
  const FloatGraph& g;
  const QuantOptions& opt;
  std::vector<PlannedLayer> plan;
  std::vector<std::map<std::string, FloatTensor>> runs;
  std::map<std::string, std::string> net_name;  // float tensor -> network tensor
  ExpGroups groups;
  std::vector<int> w_exp;  // per planned layer (Conv, Gemm): the whole tensor's
  // Per planned layer with per-channel scales: each output channel's own (>= w_exp).
  std::vector<std::vector<int>> channel_w_exp;
  // Lanes of 9 to 16 bits: the fan-in rule's bits (fan_in_rule below). Per float tensor, the
  // value bits its weighted consumers allow; per network tensor, its calibrated magnitude.
  std::map<std::string, int> consumer_bits;
  std::map<std::string, double> amax;

  const GraphNode& main(size_t i) const { return g.nodes[plan[i].main]; }
  const std::string& in_name(size_t i) const { return net_name.at(main(i).inputs[0]); }
  const std::string& out_name(size_t i) const { return net_name.at(plan[i].out); }
  bool weighted(size_t i) const {
    return main(i).op == GraphOp::kConv || main(i).op == GraphOp::kGemm;
  }
  bool wide() const { return needs_wide_network(opt.widths); }
};

// The fan-in rule of lanes wider than 8 bits (docs/element_widths.md): a weighted layer of
// fan-in K sums K products in an ACC-bit accumulator, so its inputs x (a B_x-bit lane, |x| <=
// 2^(B_x-1)) and weights w (B_w bits) keep |x| |w| K <= 2^(B_x-1+B_w-1) K <= 2^(ACC-2): half
// the accumulator's range, the bias (saturated to ACC-1 bits) the other half, so that no sum
// wraps. p = (B_x - 1) + (B_w - 1), the largest with K 2^p <= 2^(ACC-2), is split evenly (the
// weights take the odd bit), each side at most its lane. At int8 and narrower the lanes are
// the config's (the accumulator may wrap, as the hardware does).
int product_bits(const GraphNode& m, int acc_bits) {
  const uint64_t k = m.weight.data.size() / uint64_t(m.weight.dims[0]);
  int p = 0;
  while (p < 62 && (k << (p + 1)) <= (uint64_t(1) << (acc_bits - 2))) {
    ++p;
  }
  if (k > (uint64_t(1) << (acc_bits - 2)) || p < 2) {
    throw Error(fmt::format(
        "quantization: node '{}': fan-in {} leaves no room for an input and a weight of one bit "
        "each in an int{} accumulator ({} x 2^2 > 2^{}: the fan-in rule, "
        "docs/element_widths.md)",
        m.name, k, acc_bits, k, acc_bits - 2));
  }
  return p;
}

// The value bits (signed lane width) of the inputs of weighted layer m at widths w.
int input_bits_for(const GraphNode& m, const LayerWidths& w) {
  return std::min(w.inp, product_bits(m, w.acc) / 2 + 1);
}

// Per float tensor, the narrowest input lane of its weighted consumers (absent: the config's).
std::map<std::string, int> fan_in_rule(const Quantizer& q) {
  std::map<std::string, int> bits;
  for (size_t i = 0; i < q.plan.size(); ++i) {
    if (q.weighted(i)) {
      const std::string& t = q.main(i).inputs[0];
      const int b = input_bits_for(q.main(i), q.opt.widths);
      bits[t] = bits.count(t) ? std::min(bits[t], b) : b;
    }
  }
  return bits;
}

// A network tensor's value bits: the config's input lane; at lanes wider than 8 bits the
// narrowest that the fan-in rule allows any tensor sharing its exponent (the tensors of one
// exponent group hold the same values, so one bound).
int value_bits(Quantizer& q, const std::string& net_tensor) {
  if (!q.wide()) {
    return q.opt.widths.inp;
  }
  const std::string root = q.groups.root(net_tensor);
  int bits = q.opt.widths.inp;
  for (const auto& [f, n] : q.net_name) {
    auto it = q.consumer_bits.find(f);
    if (it != q.consumer_bits.end() && q.groups.root(n) == root) {
      bits = std::min(bits, it->second);
    }
  }
  return bits;
}

// Weighted layer i's weight lane: the config's; at lanes wider than 8 bits what the fan-in rule
// leaves beside its input's lane, at most the config's.
int weight_bits(Quantizer& q, size_t i) {
  if (!q.wide()) {
    return q.opt.widths.wgt;
  }
  const int p = product_bits(q.main(i), q.opt.widths.acc);
  return std::min(q.opt.widths.wgt, p - (value_bits(q, q.in_name(i)) - 1) + 1);
}

// A network layer's name from its first node's: torch's "/layer1/layer1.0/conv1/Conv" becomes
// "layer1/layer1.0/conv1" (the full name if that is taken; the full name and "#2", "#3", ... if
// that is taken too: a shortened name of another node may be it).
std::string layer_name(const std::string& node, std::set<std::string>& used) {
  std::string s = node.size() > 1 && node[0] == '/' ? node.substr(1) : node;
  if (const size_t slash = s.rfind('/'); slash != std::string::npos && slash > 0) {
    s.resize(slash);
  }
  if (s.empty() || used.count(s)) {
    s = node;
  }
  for (int k = 2; used.count(s); ++k) {
    s = fmt::format("{}#{}", node, k);
  }
  used.insert(s);
  return s;
}

// Each output channel's weight exponent (the weights' first dimension): the largest whose int8
// range holds the channel's weights.
std::vector<int> channel_exponents(const GraphNode& m, int limit) {
  const size_t units = size_t(m.weight.dims[0]), per = m.weight.data.size() / units;
  std::vector<int> e(units);
  for (size_t u = 0; u < units; ++u) {
    float wmax = 0;
    for (size_t j = 0; j < per; ++j) {
      wmax = std::max(wmax, std::fabs(m.weight.data[u * per + j]));
    }
    e[u] = exp_for_range(wmax, fmt::format("weights of output channel {} of node '{}'", u, m.name),
                         limit);
  }
  return e;
}

// A residual chain (tensors linked by fused residual adds) whose tensors' own exponents spread
// over at most this keeps one exponent: the add needs no second rounding and the coarser
// exponent leaves headroom. Measured (compiler/README.md): with 1, resnet101/152 and
// wide_resnet101_2 lost 0.001 to 0.018 of output cosine; with 2 none lost and resnet50 and
// resnet152 gained. A wider spread would quantize a chain's early tensors coarsely.
constexpr int kSharedChainSpread = 2;

// Per planned layer: whether its fused residual shares its output's exponent (its chain's
// calibrated exponents, in q.groups before any join, spread by at most kSharedChainSpread).
std::vector<bool> shared_residuals(Quantizer& q) {
  ExpGroups lo, hi;  // each chain's lowest exponent, and its highest negated
  for (const auto& [t, e] : q.groups.exp) {
    lo.exp[t] = e, hi.exp[t] = -e;
  }
  for (size_t i = 0; i < q.plan.size(); ++i) {
    if (q.plan[i].add) {
      lo.join(q.out_name(i), q.net_name.at(q.plan[i].residual));
      hi.join(q.out_name(i), q.net_name.at(q.plan[i].residual));
    }
  }
  std::vector<bool> shared(q.plan.size());
  for (size_t i = 0; i < q.plan.size(); ++i) {
    const std::string& out = q.out_name(i);
    shared[i] = q.plan[i].add && -hi.at(out) - lo.at(out) <= kSharedChainSpread;
  }
  return shared;
}

// A fused residual keeps its own exponent, at most 8 finer than the output's
// (Epilogue::residual_shift); one coarser would need a left shift: the output's is lowered to it.
bool coarsen_for_residual(Quantizer& q, size_t i) {
  if (!q.plan[i].add) {
    return false;
  }
  const int e_res = q.groups.at(q.net_name.at(q.plan[i].residual));
  int& e_out = q.groups.at(q.out_name(i));
  if (e_out <= e_res) {
    return false;
  }
  e_out = e_res;
  return true;
}

void settle_exponents(Quantizer& q);

// At lanes wider than 8 bits: every tensor's exponent lowered until its calibrated magnitude
// fits the value bits of its exponent group (the fan-in rule), then the shifts settled again.
void fit_fan_in_rule(Quantizer& q) {
  for (const auto& [t, amax] : q.amax) {
    const int e = exp_for_range(amax, "values of tensor '" + t + "'", lane_max(value_bits(q, t)));
    q.groups.at(t) = std::min(q.groups.at(t), e);
  }
  settle_exponents(q);
}

// Calibrated exponents, shared exponents joined, weight exponents, and shifts made >= 0. The
// per-tensor weight exponent is the smallest channel's, so per-channel scales change no
// activation exponent: only the weights' and the shifts.
void choose_exponents(Quantizer& q) {
  if (q.wide()) {
    q.consumer_bits = fan_in_rule(q);
  }
  // A QDQ graph's own exponents replace the calibrated ones.
  auto calibrated = [&](const std::string& t, const std::string& name) {
    auto fixed = q.g.fixed_exponents.find(t);
    if (fixed != q.g.fixed_exponents.end()) {
      return fixed->second;
    }
    const double amax = calibrated_range(q.runs, t, q.opt);
    q.amax[name] = amax;
    auto bits = q.consumer_bits.find(t);
    return exp_for_range(amax, "values of tensor '" + t + "'",
                         lane_max(bits == q.consumer_bits.end() ? q.opt.widths.inp : bits->second));
  };
  q.net_name[q.g.input] = q.g.input;
  q.groups.exp[q.g.input] = calibrated(q.g.input, q.g.input);
  std::set<std::string> used{q.g.input};
  for (const PlannedLayer& p : q.plan) {
    const std::string name = layer_name(q.g.nodes[p.main].name, used);
    q.net_name[p.out] = name;
    q.groups.exp[name] = calibrated(p.out, name);
  }
  const std::vector<bool> shared = shared_residuals(q);
  for (size_t i = 0; i < q.plan.size(); ++i) {
    const GraphNode& m = q.main(i);
    const std::string& out = q.out_name(i);
    if (m.op == GraphOp::kMaxPool || m.op == GraphOp::kAdd || m.op == GraphOp::kConcat ||
        m.op == GraphOp::kView || m.op == GraphOp::kPermute || m.op == GraphOp::kSlice ||
        m.op == GraphOp::kChannelShuffle || m.op == GraphOp::kMin || m.op == GraphOp::kMax) {
      for (const std::string& in : m.inputs) {
        q.groups.join(out, q.net_name.at(in));
      }
    }
    if (shared[i]) {
      q.groups.join(out, q.net_name.at(q.plan[i].residual));
    }
  }
  for (size_t i = 0; i < q.plan.size(); ++i) {  // after the joins: the fan-in rule's groups
    const GraphNode& m = q.main(i);
    float wmax = 0;
    for (float v : m.weight.data) {
      wmax = std::max(wmax, std::fabs(v));
    }
    const int wlimit = lane_max(q.weighted(i) ? weight_bits(q, i) : q.opt.widths.wgt);
    q.w_exp.push_back(exp_for_range(wmax, "weights of node '" + m.name + "'", wlimit));
    q.channel_w_exp.push_back(q.opt.per_channel && q.weighted(i) ? channel_exponents(m, wlimit)
                                                                 : std::vector<int>());
  }
  if (q.wide()) {
    fit_fan_in_rule(q);
  }
  settle_exponents(q);
}

// A negative shift would need a left shift: lower the output's exponent instead (fixpoint;
// exponents only decrease, so it ends).
void settle_exponents(Quantizer& q) {
  for (int round = 0; round < 1000; ++round) {
    bool changed = false;
    for (size_t i = 0; i < q.plan.size(); ++i) {
      changed = coarsen_for_residual(q, i) || changed;
      const int need = q.groups.at(q.in_name(i)) + q.w_exp[i];
      if (q.weighted(i) && q.groups.at(q.out_name(i)) > need) {
        if (need < kMinExp) {
          throw Error(fmt::format(
              "quantization: node '{}': its output would need the scale 2^{} (input 2^-{}, "
              "weights 2^-{}); values this large do not fit the int8 flow",
              q.main(i).name, -need, q.groups.at(q.in_name(i)), q.w_exp[i]));
        }
        q.groups.at(q.out_name(i)) = need;
        changed = true;
      }
    }
    if (!changed) {
      return;
    }
  }
  throw Error("quantization: the exponents of the residual chains do not settle");
}

// The int32 bias of output channel u at scale 2^-(e_in + e_w) with the rounding half unit of
// its shift; throws naming the node when it does not fit. A lane narrower than 32 bits
// (`acc_bits`: a narrower accumulator, or ACC - 1 under the fan-in rule) saturates it.
int32_t quantize_bias(const GraphNode& m, size_t u, int e_in, int e_w, int shift, int acc_bits) {
  const double half = shift ? std::ldexp(1.0, shift - 1) : 0.0;
  const double b = std::round(double(m.bias.data[u]) * std::ldexp(1.0, e_in + e_w)) + half;
  if (std::fabs(b) > 2147483647.0) {
    throw Error(fmt::format("quantization: node '{}': bias {} does not fit int32 at scale 2^-{}",
                            m.name, m.bias.data[u], e_in + e_w));
  }
  if (acc_bits < 32) {
    return int32_t(std::clamp(b, double(lane_min(acc_bits)), double(lane_max(acc_bits))));
  }
  return int32_t(b);
}

int per_unit(const std::vector<int>& v, size_t u) {
  return v.size() == 1 ? v[0] : v[u];
}

// The weights of `m` quantized per output channel u at e_w[u] to a `bits`-bit lane, as T (int8_t,
// or int16_t at wide lanes); dense: transposed to B, inputs x units.
template <class T>
std::shared_ptr<const std::vector<T>> quantized_weights(const GraphNode& m,
                                                        const std::vector<int>& e_w, int bits) {
  const long wlo = lane_min(bits), whi = lane_max(bits);
  const int units = m.weight.dims[0];
  const size_t per = m.weight.data.size() / size_t(units);
  std::vector<T> w(m.weight.data.size());
  for (size_t u = 0; u < size_t(units); ++u) {
    const double scale = std::ldexp(1.0, per_unit(e_w, u));
    for (size_t j = u * per; j < (u + 1) * per; ++j) {
      w[j] = T(std::clamp(std::lround(double(m.weight.data[j]) * scale), wlo, whi));
    }
  }
  if (m.op == GraphOp::kGemm) {  // dense: B is inputs x units
    std::vector<T> t(w.size());
    for (size_t u = 0; u < size_t(units); ++u) {
      for (size_t j = 0; j < per; ++j) {
        t[j * size_t(units) + u] = w[u * per + j];
      }
    }
    w.swap(t);
  }
  return std::make_shared<const std::vector<T>>(std::move(w));
}

// The quantized weights (a `wgt_bits`-bit lane) and int32 bias of weighted layer `m` at input
// exponent e_in and per output channel u weight exponent e_w[u] and shift shift[u] (one value
// each: the same for every channel). Lanes wider than 8 bits: int16_t weights (weights_i16),
// the bias within ACC - 1 bits (the fan-in rule).
void quantize_weights(const GraphNode& m, int e_in, const std::vector<int>& e_w,
                      const std::vector<int>& shift, const LayerWidths& widths, int wgt_bits,
                      NetworkLayer& l) {
  const int units = m.weight.dims[0];
  if (m.op == GraphOp::kConv) {
    l.k = units, l.groups = m.groups;
  } else {
    l.units = units;
  }
  const bool wide = needs_wide_network(widths);
  if (wide) {
    l.weights_i16 = quantized_weights<int16_t>(m, e_w, wgt_bits);
  } else {
    l.weights = quantized_weights<int8_t>(m, e_w, wgt_bits);
  }
  std::vector<int32_t> bias(static_cast<size_t>(units));
  for (size_t u = 0; u < bias.size(); ++u) {
    bias[u] = quantize_bias(m, u, e_in, per_unit(e_w, u), per_unit(shift, u),
                            wide ? widths.acc - 1 : widths.acc);
  }
  l.bias = std::make_shared<const std::vector<int32_t>>(std::move(bias));
}

// The attributes of the operators of sequence models: their exponents (the host's float
// operators: in and out; batch_matmul: both operands and out), their parameters.
void sequence_attributes(Quantizer& q, const GraphNode& m, NetworkLayer& l) {
  const int e_in = q.groups.at(l.input), e_out = q.groups.at(l.name);
  if (m.op == GraphOp::kBatchMatMul) {
    l.residual = q.net_name.at(m.inputs[1]);
    l.attrs["a_exp"] = e_in, l.attrs["b_exp"] = q.groups.at(l.residual);
    l.attrs["out_exp"] = e_out;
    l.attrs["p"] = q.runs[0].at(m.inputs[1]).dims[3];  // B's width, for the placement
  } else if (m.op == GraphOp::kView) {
    l.attrs["to_n"] = m.to_dims[0], l.attrs["to_c"] = m.to_dims[1];
    l.attrs["to_h"] = m.to_dims[2], l.attrs["to_w"] = m.to_dims[3];
  } else if (m.op == GraphOp::kPermute) {
    for (size_t a = 0; a < 4; ++a) {
      l.attrs["perm" + std::to_string(a)] = m.perm[a];
    }
  } else {
    l.attrs["in_exp"] = e_in, l.attrs["out_exp"] = e_out;
  }
  if (m.op == GraphOp::kSoftmax || m.op == GraphOp::kLayerNorm) {
    l.attrs["axis"] = m.axis;
  }
  if (m.op == GraphOp::kLayerNorm) {
    l.attrs["eps"] = m.eps;
    if (m.l2) {
      l.attrs["l2"] = 1;
    }
    if (!m.weight.data.empty()) {
      std::vector<float> p = m.weight.data;
      p.insert(p.end(), m.bias.data.begin(), m.bias.data.end());
      l.float_params = std::make_shared<const std::vector<float>>(std::move(p));
    }
  }
  if (m.op == GraphOp::kScale) {
    l.attrs["alpha"] = m.alpha, l.attrs["beta"] = m.beta;
    if (!m.weight.data.empty()) {  // alpha per channel
      l.float_params = std::make_shared<const std::vector<float>>(m.weight.data);
    }
  }
  if (m.op == GraphOp::kAddConstant) {
    l.attrs["sequences"] = m.groups, l.attrs["rows"] = m.prefix_rows;
    l.attrs["prefix"] = double(m.weight.data.size());
    l.attrs["addend"] = double(m.bias.data.size());
    std::vector<float> p = m.weight.data;
    p.insert(p.end(), m.bias.data.begin(), m.bias.data.end());
    l.float_params = std::make_shared<const std::vector<float>>(std::move(p));
  }
}

// The exponents of the host operators that carry their scales as attributes: HardSigmoid,
// Sigmoid and Tanh (in, out), Mul (both operands, out; the per-channel operand second), and those
// of sequence models.
void scale_attributes(Quantizer& q, size_t i, NetworkLayer& l) {
  const GraphNode& m = q.main(i);
  if (is_sequence_op(m.op)) {
    return sequence_attributes(q, m, l);
  }
  const int e_in = q.groups.at(l.input), e_out = q.groups.at(l.name);
  if (m.op == GraphOp::kHardSigmoid || m.op == GraphOp::kSigmoid || m.op == GraphOp::kTanh) {
    l.attrs["in_exp"] = e_in, l.attrs["out_exp"] = e_out;
    if (m.op == GraphOp::kHardSigmoid) {
      l.attrs["alpha"] = m.alpha, l.attrs["beta"] = m.beta;
    }
  }
  if (m.op == GraphOp::kMul) {
    const bool swap = q.runs[0].at(m.inputs[1]).size() > q.runs[0].at(m.inputs[0]).size();
    l.input = q.net_name.at(m.inputs[swap ? 1 : 0]);
    l.residual = q.net_name.at(m.inputs[swap ? 0 : 1]);
    l.attrs["a_exp"] = q.groups.at(l.input), l.attrs["b_exp"] = q.groups.at(l.residual);
    l.attrs["out_exp"] = e_out;
    if (q.runs[0].at(m.inputs[0]).size() != q.runs[0].at(m.inputs[1]).size()) {
      l.attrs["per_channel"] = 1;  // b: one value per sample and channel
    }
  }
}

// The attributes of the operators that move int8 values without changing them: the groups of
// a channel shuffle, the box of a slice.
void data_movement_attributes(const GraphNode& m, NetworkLayer& l) {
  if (m.op == GraphOp::kChannelShuffle) {
    l.groups = m.groups;
  }
  if (m.op == GraphOp::kSlice) {
    const char* axes[] = {"c", "h", "w"};
    for (size_t a = 0; a < 3; ++a) {
      l.attrs[fmt::format("{}_begin", axes[a])] = m.slice_begin[a];
      l.attrs[fmt::format("{}_end", axes[a])] = m.slice_end[a];
    }
  }
}

// Weighted layer i's weights, bias and shifts: shift = e_in + e_w - e_out in 0..31 (the weights
// give way above 31), per tensor or per output channel. A channel's exponent above the
// tensor's also gives way where its bias would come near the int32 range (2^30).
void lower_weights(Quantizer& q, size_t i, NetworkLayer& l, QuantLayerReport& rep) {
  const GraphNode& m = q.main(i);
  const int e_in = q.groups.at(l.input), e_out = q.groups.at(l.name);
  int& e_w = q.w_exp[i];
  const int max_shift = q.opt.widths.acc - 1;  // 31, or 15 in an int16 accumulator
  e_w = std::min(e_w, max_shift - e_in + e_out);
  rep.inp_bits = value_bits(q, l.input), rep.wgt_bits = weight_bits(q, i);
  rep.fan_in = m.weight.data.size() / size_t(m.weight.dims[0]);
  rep.w_exp = e_w, rep.shift = e_in + e_w - e_out;
  if (!q.opt.per_channel) {
    l.epilogue.shift = rep.shift;
    return quantize_weights(m, e_in, {e_w}, {rep.shift}, q.opt.widths, rep.wgt_bits, l);
  }
  std::vector<int> ce = q.channel_w_exp[i], shifts(ce.size());
  for (size_t u = 0; u < ce.size(); ++u) {
    ce[u] = std::max(e_w, std::min(ce[u], max_shift - e_in + e_out));
    while (ce[u] > e_w && std::fabs(double(m.bias.data[u])) * std::ldexp(1.0, e_in + ce[u]) >
                              std::ldexp(1.0, 30)) {
      --ce[u];
    }
    shifts[u] = e_in + ce[u] - e_out;
  }
  rep.per_channel = true;
  rep.w_exp_max = *std::max_element(ce.begin(), ce.end());
  rep.shift_max = e_in + rep.w_exp_max - e_out;
  l.epilogue.shifts = shifts;
  quantize_weights(m, e_in, ce, shifts, q.opt.widths, rep.wgt_bits, l);
}

NetworkLayer lower_layer(Quantizer& q, size_t i, QuantLayerReport& rep) {
  const PlannedLayer& p = q.plan[i];
  const GraphNode& m = q.main(i);
  NetworkLayer l;
  l.name = q.out_name(i), l.input = q.in_name(i);
  l.kh = m.kh, l.kw = m.kw, l.stride_h = m.stride_h, l.stride_w = m.stride_w;
  l.pad_top = m.pad_top, l.pad_left = m.pad_left, l.pad_bottom = m.pad_bottom;
  l.pad_right = m.pad_right;
  const int e_in = q.groups.at(l.input), e_out = q.groups.at(l.name);
  rep = QuantLayerReport{l.name, layer_ops(m, p), false, e_in, 0, e_out, 0, 0, 0};
  l.op = op_def_for_graph_op(m.op).name;
  l.count_include_pad = m.count_include_pad;
  // The output's lane: the config's, or under the fan-in rule its exponent group's bits.
  const int out_bits = value_bits(q, l.name);
  rep.out_bits = out_bits;
  if (m.op == GraphOp::kAvgPool || m.op == GraphOp::kGlobalAvgPool) {
    l.rescale = std::clamp(e_out - e_in, -24, 24);  // averaging shrinks the range: its own scale
    rep.shift = -l.rescale;
  }
  if (q.wide() && !q.weighted(i)) {  // a host layer's output within its bits (follow_wide)
    l.epilogue.clip_lo = lane_min(out_bits), l.epilogue.clip_hi = lane_max(out_bits);
  }
  if (m.op == GraphOp::kAdd || m.op == GraphOp::kMin || m.op == GraphOp::kMax) {
    const bool constant = m.inputs.size() == 1;  // a Min / Max with a constant: its clip bound
    l.residual = constant ? std::string() : q.net_name.at(m.inputs[1]);
    activation_bounds(constant ? &m : p.act, e_out, out_bits, l.epilogue);
  }
  if (m.op == GraphOp::kConcat) {
    for (const std::string& in : m.inputs) {
      l.inputs.push_back(q.net_name.at(in));
    }
  }
  data_movement_attributes(m, l);
  if (!q.weighted(i)) {
    scale_attributes(q, i, l);
    return l;
  }
  l.epilogue.bias = true;
  activation_bounds(p.act, e_out, out_bits, l.epilogue);
  if (p.add) {
    l.residual = q.net_name.at(p.residual);
    l.epilogue.residual = true;
    // A residual more than 8 finer than the output rounds to 0 (its magnitude is below 1/2).
    l.epilogue.residual_shift = std::min(q.groups.at(l.residual) - e_out, 8);
  }
  lower_weights(q, i, l, rep);
  return l;
}

double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : (aa == bb ? 1.0 : 0.0);
}

// The network's input: sample s quantized at the input's exponent, into net.input_data (int8
// and narrower lanes) or net.input_i16 (lanes of 9 to 16 bits), within the input's value bits.
void set_quantized_input(Quantizer& q, const QuantizedModel& m, size_t s, Network& net) {
  const std::vector<float>& x = q.runs[s].at(q.g.input).data;
  const int limit = lane_max(value_bits(q, q.g.input));
  if (q.wide()) {
    net.input_i16 = std::make_shared<const std::vector<int16_t>>(
        quantize_values<int16_t>(x, m.input_exp, limit));
  } else {
    net.input_data =
        std::make_shared<const std::vector<int8_t>>(quantize_values(x, m.input_exp, limit));
  }
}

// The reference's tensors of `net`: int8_t ones, or int32_t lanes at lanes wider than 8 bits.
void reference_tensors(const Network& net, const LayerWidths& w,
                       std::map<std::string, NetworkTensor>& out) {
  out = reference_network_tensors(net, w);
}
void reference_tensors(const Network& net, const LayerWidths& w, WideTensors& out) {
  out = reference_network_tensors_wide(net, w);
}

// Per-sample agreement of the reference's output with the float graph's.
struct Agreement {
  std::vector<double> signal, noise;  // per layer
  double cos_sum = 0;
  int agree = 0;
};

// Sample s on the reference (`Tensors`: int8 or wide), into each layer's SNR and the output's
// cosine and top-1 agreement; the first sample's output into `first`.
template <class Tensors, class Lane>
void measure_sample(Quantizer& q, QuantizedModel& m, size_t s, Agreement& a,
                    std::vector<Lane>& first) {
  Network net = m.net;
  set_quantized_input(q, m, s, net);
  Tensors ints;
  reference_tensors(net, q.opt.widths, ints);
  for (size_t i = 0; i < q.plan.size(); ++i) {
    const std::vector<float>& f = q.runs[s].at(q.plan[i].out).data;
    const auto& v = ints.at(m.layers[i].name).data;
    const double step = std::ldexp(1.0, -m.layers[i].out_exp);
    for (size_t j = 0; j < f.size(); ++j) {
      a.signal[i] += double(f[j]) * f[j];
      a.noise[i] += (f[j] - v[j] * step) * (f[j] - v[j] * step);
    }
  }
  const std::vector<float>& fo = q.runs[s].at(q.g.output).data;
  const std::vector<Lane>& io = ints.at(m.output_layer).data;
  if (s == 0) {
    first = io;
  }
  const size_t batch = size_t(q.g.batch_size()), per = fo.size() / batch;
  for (size_t b = 0; b < batch; ++b) {
    std::vector<double> x(fo.begin() + long(b * per), fo.begin() + long((b + 1) * per));
    std::vector<double> y(io.begin() + long(b * per), io.begin() + long((b + 1) * per));
    const double c = cosine(x, y);
    a.cos_sum += c, m.cosine = std::min(m.cosine, c), ++m.samples;
    a.agree += std::max_element(x.begin(), x.end()) - x.begin() ==
                       std::max_element(y.begin(), y.end()) - y.begin()
                   ? 1
                   : 0;
  }
}

// Runs the reference at the widths on every calibration input: SNR per layer, output
// agreement; counts each run on `progress` after the float runs.
void measure(Quantizer& q, QuantizedModel& m, ProgressDisplay& progress) {
  Agreement a{std::vector<double>(q.plan.size()), std::vector<double>(q.plan.size())};
  m.cosine = 1;
  for (size_t s = 0; s < q.runs.size(); ++s) {
    if (q.wide()) {
      measure_sample<WideTensors>(q, m, s, a, m.reference_output_wide);
    } else {
      measure_sample<std::map<std::string, NetworkTensor>>(q, m, s, a, m.reference_output);
    }
    progress.update(q.runs.size() + s + 1, 0);
  }
  for (size_t i = 0; i < q.plan.size(); ++i) {
    m.layers[i].snr_db = a.noise[i] > 0 ? 10 * std::log10(a.signal[i] / a.noise[i]) : 99.0;
  }
  m.cosine_mean = a.cos_sum / std::max(m.samples, 1);
  m.top1_agreement = double(a.agree) / std::max(m.samples, 1);
}

}  // namespace

void QuantOptions::set_quant(const std::string& text) {
  std::string m = "max";
  bool pc = false, seen_mode = false, seen_scales = false;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? comma : comma - start);
    const bool is_mode = part == "max" || part == "percentile";
    const bool is_scales = part == "per-tensor" || part == "per-channel";
    if ((!is_mode && !is_scales) || (is_mode && seen_mode) || (is_scales && seen_scales)) {
      throw Error(fmt::format(
          "quantization '{}': '{}' is {} (a calibration mode max or percentile and / or weight "
          "scales per-tensor or per-channel, comma-separated, e.g. max,per-channel)",
          text, part, is_mode || is_scales ? "given twice" : "unknown"));
    }
    if (is_mode) {
      m = part, seen_mode = true;
    } else {
      pc = part == "per-channel", seen_scales = true;
    }
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  mode = m;
  per_channel = pc;
}

std::string QuantOptions::quant() const {
  return per_channel ? mode + ",per-channel" : mode;
}

std::vector<FloatTensor> calibration_inputs(const FloatGraph& g, int count, uint64_t seed) {
  std::vector<FloatTensor> out;
  for (int i = 0; i < count; ++i) {
    std::mt19937_64 rng(seed + uint64_t(i));
    std::normal_distribution<float> d(0.0f, 1.0f);
    FloatTensor t{g.input_dims, {}};
    t.data.resize(t.size());
    for (float& v : t.data) {
      v = d(rng);
    }
    out.push_back(std::move(t));
  }
  return out;
}

bool is_onnx_model(const std::string& path) {
  const std::string ext = ".onnx";  // in any case: M.ONNX is a model too
  if (path.size() <= ext.size()) {
    return false;
  }
  for (size_t i = 0; i < ext.size(); ++i) {
    const char c = path[path.size() - ext.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != ext[i]) {
      return false;
    }
  }
  return true;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

FloatGraph import_onnx_timed(const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  FloatGraph g = import_onnx(path);
  g.import_seconds = seconds_since(start);
  return g;
}

QuantizedModel import_and_quantize(const std::string& path, const QuantOptions& opt) {
  return quantize_graph(import_onnx_timed(path), opt);
}

FloatTensor read_float_input(const FloatGraph& g, const std::string& path) {
  FloatTensor t{g.input_dims, {}};
  // The size first: /dev/zero or a huge file is refused, never read whole.
  const uint64_t need = t.size() * 4;
  std::error_code ec;
  const uint64_t size =
      std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : need;
  if (size != need) {
    throw Error(
        fmt::format("{}: {} bytes, but the model's input {} needs {} float32 values ({} "
                    "bytes)",
                    path, size, t.shape(), t.size(), need));
  }
  const std::string bytes = read_input_file(path, "input file", need);
  if (bytes.size() != need) {
    throw Error(fmt::format("{}: {} bytes, but the model's input {} needs {} bytes", path,
                            bytes.size(), t.shape(), need));
  }
  t.data.resize(t.size());
  std::memcpy(t.data.data(), bytes.data(), bytes.size());
  return t;
}

namespace {

// A layer's output values and the int8 bytes it reads and writes (every activation input).
void count_bytes(const Quantizer& q, size_t i, QuantLayerReport& rep) {
  rep.values = q.runs[0].at(q.plan[i].out).size();
  rep.bytes = rep.values;
  for (const std::string& in : q.main(i).inputs) {
    rep.bytes += q.runs[0].at(in).size();
  }
  if (q.plan[i].add) {
    rep.bytes += q.runs[0].at(q.plan[i].residual).size();
  }
}

}  // namespace

void QuantizedModel::time_host(const HostCpu& cpu, const HwConfig* cfg) {
  host_cpu = cpu.name;
  host_us = 0;
  vta_macs = host_macs = 0;
  const bool layered = layers.size() == net.layers.size();
  const auto shapes = layered ? infer_network_shapes(net) : std::map<std::string, TensorShape>();
  for (size_t i = 0; i < layers.size(); ++i) {
    QuantLayerReport& l = layers[i];
    const NetworkLayer* nl = layered ? &net.layers[i] : nullptr;
    const OpDef* def = nl ? &op_def(nl->op) : nullptr;
    if (nl && cfg) {
      l.on_vta = choose_placement(*nl, shapes.at(nl->input), cfg).place == Placement::kVta;
    }
    (l.on_vta ? vta_macs : host_macs) += l.macs;
    l.host_us = 0;
    if (l.on_vta) {  // the host's part of a VTA layer (repacking), serial with it
      if (def && cfg) {
        l.host_us = vta_host_us(*def, *nl, shapes.at(nl->input), *cfg);
        host_us += l.host_us;
      }
      continue;
    }
    if (def && def->host_work) {
      const HostWorkCount w = def->host_work(*nl, shapes.at(nl->input));
      l.host_us = host_layer_us(cpu, w.work, w.ops, w.bytes);
    } else {
      l.host_us = l.macs ? host_layer_us(cpu, HostWork::kInt8Mac, l.macs, l.bytes)
                         : host_layer_us(cpu, HostWork::kElementwise, l.values, l.bytes);
    }
    host_us += l.host_us;
  }
}

bool quantizable_widths(const LayerWidths& widths) {
  return widths.inp <= 16 && widths.wgt <= 16;
}

void check_quantizable_widths(const std::string& model, const LayerWidths& widths) {
  if (!quantizable_widths(widths)) {
    throw Error(
        fmt::format("quantization of {} to {} lanes: quantized networks hold input and weight "
                    "lanes of 1 to 16 bits (int8_t, or int16_t from 9 bits; lanes wider than "
                    "16 bits would hold no more precision under the fan-in rule, "
                    "docs/element_widths.md)",
                    model, widths.describe()));
  }
}

namespace {

template <class A, class B>
bool same_values(const std::vector<A>& a, const std::vector<B>& b, size_t* differ) {
  size_t d = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    d += a[i] != b[i] ? 1 : 0;
  }
  if (differ) {
    *differ = d;
  }
  return d == 0 && a.size() == b.size();
}

}  // namespace

bool output_matches_reference(const QuantizedModel& model, const NetworkRun& run, size_t* differ) {
  if (needs_wide_network(model.options.widths)) {
    return same_values(run.wide_output, model.reference_output_wide, differ);
  }
  return same_values(run.output, model.reference_output, differ);
}

namespace {

// The operators of `plan` that networks of lanes wider than 8 bits do not run (none at 8 bits
// and below): a named error listing each with its first node.
void check_wide_operators(const FloatGraph& g, const std::vector<PlannedLayer>& plan,
                          const LayerWidths& widths) {
  if (!needs_wide_network(widths)) {
    return;
  }
  std::map<std::string, std::string> missing;  // operator -> its first node
  for (const PlannedLayer& p : plan) {
    const GraphNode& m = g.nodes[p.main];
    const OpDef& def = op_def_for_graph_op(m.op);
    const bool grouped = m.op == GraphOp::kConv && m.groups > 1;
    if (grouped || (!def.make_wide_job && !def.run_host_wide)) {
      const std::string op = grouped ? "grouped conv2d" : def.name;
      missing.emplace(op, m.name);
    }
  }
  if (missing.empty()) {
    return;
  }
  std::string list;
  for (const auto& [op, node] : missing) {
    list += fmt::format("{}{} (node '{}')", list.empty() ? "" : ", ", op, node);
  }
  throw Error(fmt::format(
      "quantization of {} to {} lanes: operators without an int16 path: {} (networks of lanes "
      "wider than 8 bits run {})",
      g.name, widths.describe(), list, wide_operator_names()));
}

}  // namespace

QuantizedModel quantize_graph(const FloatGraph& g, const QuantOptions& opt) {
  if (opt.calib < 1) {
    throw Error(fmt::format("quantization needs at least 1 calibration input (got {})", opt.calib));
  }
  if (opt.mode != "max" && opt.mode != "percentile") {
    throw Error(fmt::format("quantization mode '{}' is unknown (max, percentile)", opt.mode));
  }
  check_quantizable_widths(g.name, opt.widths);
  const auto start = std::chrono::steady_clock::now();
  Quantizer q{g, opt, plan_layers(g), {}, {}, {}, {}, {}, {}, {}};
  check_wide_operators(g, q.plan, opt.widths);
  std::vector<FloatTensor> inputs = calibration_inputs(g, opt.calib, opt.seed);
  if (opt.first_input) {
    if (opt.first_input->size() != inputs[0].size()) {
      throw Error(fmt::format("the input has {} values but the model's input {} needs {}",
                              opt.first_input->size(), inputs[0].shape(), inputs[0].size()));
    }
    inputs[0].data = opt.first_input->data;
  }
  // Each sample runs twice: in float (calibration) and as the int8 reference (measure).
  const std::unique_ptr<ProgressDisplay> progress =
      ProgressDisplay::steps(fmt::format("vtasim: quantize {}", g.name), "calibration runs",
                             2 * inputs.size(), opt.progress);
  for (const FloatTensor& x : inputs) {
    q.runs.push_back(run_float(g, x));
    progress->update(q.runs.size(), 0);
  }
  choose_exponents(q);
  QuantizedModel m;
  m.options = opt;
  m.net.name = g.name;
  m.net.input_name = g.input;
  m.net.n = g.input_dims[0], m.net.c = g.input_dims[1];
  m.net.h = g.input_dims[2], m.net.w = g.input_dims[3];
  m.input_exp = q.groups.at(g.input);
  const auto macs = g.node_macs();
  for (size_t i = 0; i < q.plan.size(); ++i) {
    QuantLayerReport rep;
    m.net.layers.push_back(lower_layer(q, i, rep));
    rep.on_vta = m.net.layers.back().on_vta();
    rep.macs = macs.at(q.main(i).name);
    count_bytes(q, i, rep);
    (rep.on_vta ? m.vta_macs : m.host_macs) += rep.macs;
    m.layers.push_back(rep);
  }
  m.output_layer = q.net_name.at(g.output);
  m.output_exp = q.groups.at(m.output_layer);
  m.net.validate();
  measure(q, m, *progress);
  progress->finish();
  m.import_seconds = g.import_seconds;
  m.quantize_seconds = seconds_since(start);
  set_quantized_input(q, m, 0, m.net);
  return m;
}

nlohmann::ordered_json QuantizedModel::to_json() const {
  nlohmann::ordered_json j;
  j["mode"] = options.mode;
  j["weight_scales"] = options.per_channel ? "per-channel" : "per-tensor";
  j["calibration_inputs"] = options.calib;
  j["seed"] = options.seed;
  if (!options.widths.is_int8()) {  // int8 reports keep their keys
    j["widths"] = options.widths.describe();
  }
  j["input_exponent"] = input_exp;
  j["output_exponent"] = output_exp;
  j["cosine_similarity"] = cosine;
  j["cosine_similarity_mean"] = cosine_mean;
  j["top1_agreement"] = top1_agreement;
  j["samples"] = samples;
  j["vta_macs"] = vta_macs;
  j["host_macs"] = host_macs;
  j["import_seconds"] = import_seconds;
  j["quantize_seconds"] = quantize_seconds;
  if (!host_cpu.empty()) {
    j["host_cpu"] = host_cpu;
    j["host_time_us"] = host_us;
  }
  if (needs_wide_network(options.widths)) {
    j["reference_output"] = reference_output_wide;
  } else {
    j["reference_output"] = reference_output;
  }
  j["layers"] = nlohmann::ordered_json::array();
  for (const QuantLayerReport& l : layers) {
    j["layers"].push_back({{"name", l.name},
                           {"ops", l.ops},
                           {"on_vta", l.on_vta},
                           {"input_exponent", l.in_exp},
                           {"weight_exponent", l.w_exp},
                           {"output_exponent", l.out_exp},
                           {"shift", l.shift},
                           {"snr_db", l.snr_db},
                           {"macs", l.macs},
                           {"host_time_us", l.host_us}});
    if (l.per_channel) {  // weight_exponent and shift are then the smallest of the channels'
      j["layers"].back()["weight_exponent_max"] = l.w_exp_max;
      j["layers"].back()["shift_max"] = l.shift_max;
    }
    if (needs_wide_network(options.widths)) {  // the fan-in rule's lanes
      j["layers"].back()["output_bits"] = l.out_bits;
      if (l.fan_in) {
        j["layers"].back()["input_bits"] = l.inp_bits;
        j["layers"].back()["weight_bits"] = l.wgt_bits;
        j["layers"].back()["fan_in"] = l.fan_in;
      }
    }
  }
  return j;
}

std::string QuantizedModel::describe() const {
  std::string s = fmt::format(
      "quantization: {} calibration, {} seeded N(0,1) input(s) (seed {}); {}scales 2^-e, shift = "
      "e_in + e_w - e_out{}\n",
      options.mode == "percentile" ? fmt::format("{}th percentile", options.percentile) : "max",
      options.calib, options.seed, options.per_channel ? "per-channel weight scales; " : "",
      options.per_channel ? " (per channel: lowest..highest)" : "");
  size_t ops_width = 16;  // as wide as the longest operator list ("LayerNormalization", ...)
  for (const QuantLayerReport& l : layers) {
    ops_width = std::max(ops_width, l.ops.size());
  }
  const int w = options.per_channel ? 6 : 4, sw = options.per_channel ? 6 : 5;
  s += fmt::format("  {:<44} {:<{}} {:<5} {:>4} {:>{}} {:>5} {:>{}} {:>7} {:>10}\n", "layer", "ops",
                   ops_width, "where", "e_in", "e_w", w, "e_out", "shift", sw, "SNR dB", "MACs");
  // A per-channel range as "lo..hi" (one value when every channel has it).
  auto range = [](int lo, int hi) {
    return lo == hi ? std::to_string(lo) : fmt::format("{}..{}", lo, hi);
  };
  for (const QuantLayerReport& l : layers) {
    const bool weighted = l.ops.rfind("Conv", 0) == 0 || l.ops.rfind("Gemm", 0) == 0;
    const int w_hi = l.per_channel ? l.w_exp_max : l.w_exp;
    const int s_hi = l.per_channel ? l.shift_max : l.shift;
    s += fmt::format("  {:<44} {:<{}} {:<5} {:>4} {:>{}} {:>5} {:>{}} {:>7.1f} {:>10}\n", l.name,
                     l.ops, ops_width, l.on_vta ? "vta" : "host", l.in_exp,
                     weighted ? range(l.w_exp, w_hi) : "-", w, l.out_exp,
                     weighted || l.shift ? range(l.shift, s_hi) : "-", sw, l.snr_db, l.macs);
  }
  const double total = double(std::max<uint64_t>(vta_macs + host_macs, 1));
  s += fmt::format(
      "  output vs float{}: cosine similarity {:.4f} (lowest of {} sample(s); mean {:.4f}), top-1 "
      "agreement {:.0f}%\n  MACs: {} on VTA ({:.1f}%), {} on the host ({:.1f}%)\n",
      options.widths.is_int8() ? "" : " at " + options.widths.describe(), cosine, samples,
      cosine_mean, 100 * top1_agreement, vta_macs, 100 * double(vta_macs) / total, host_macs,
      100 * double(host_macs) / total);
  return s;
}

}  // namespace vta::compiler
