#ifdef VTA_HAVE_ONNX

#include "frontend/constant_folding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/onnx_index_rules.h"

namespace vta::compiler {

namespace {

// The most values a fold creates (a class token expanded to its batch, a mask).
constexpr int64_t kMaxFoldedValues = int64_t{1} << 24;

int64_t int_attr(const onnx::NodeProto& n, const char* name, int64_t def) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) {
      return a.i();
    }
  }
  return def;
}

// A node's inputs as the importer's constants.
struct Operands {
  const onnx::NodeProto& n;
  ImportConstants c;

  const std::vector<int64_t>* ints(int i) const {
    auto it = i < n.input_size() ? c.ints.find(n.input(i)) : c.ints.end();
    return it == c.ints.end() ? nullptr : &it->second;
  }
  const FloatTensor* floats(int i) const {
    auto it = i < n.input_size() ? c.floats.find(n.input(i)) : c.floats.end();
    return it == c.floats.end() ? nullptr : &it->second;
  }
  // An optional integer input (absent or empty name: `def`).
  std::vector<int64_t> ints_or(int i, const std::vector<int64_t>& def) const {
    const std::vector<int64_t>* v = ints(i);
    return v ? *v : def;
  }
  void set(std::vector<int64_t> v) const { c.ints[n.output(0)] = std::move(v); }
  void set(FloatTensor v) const { c.floats[n.output(0)] = std::move(v); }
  // Whether operand i is an integer constant whose dims (rank 2 and more) a fold recorded.
  bool has_dims(int i) const {
    return ints(i) && c.int_dims && i < n.input_size() && c.int_dims->count(n.input(i)) > 0;
  }
  // Records the dims of the integer output (rank 2 and more; a flat one has none).
  void set_int_dims(const OnnxShape& dims) const {
    if (c.int_dims && dims.size() > 1) {
      (*c.int_dims)[n.output(0)] = dims;
    } else if (c.int_dims) {
      c.int_dims->erase(n.output(0));
    }
  }
  // The dims of operand i: a float's own, an integer's recorded ones, else flat.
  OnnxShape dims(int i) const {
    if (const FloatTensor* f = floats(i)) {
      return OnnxShape(f->dims.begin(), f->dims.end());
    }
    if (c.int_dims) {
      if (auto it = c.int_dims->find(n.input(i)); it != c.int_dims->end()) {
        return it->second;
      }
    }
    return OnnxShape{int64_t(ints(i) ? ints(i)->size() : 0)};
  }
  // Values taken from operand i by flat `index`, as an integer or float constant of `dims`.
  void set_gathered(int i, const std::vector<size_t>& index, const OnnxShape& dims) const {
    if (const std::vector<int64_t>* v = ints(i)) {
      std::vector<int64_t> out;
      for (size_t k : index) {
        out.push_back((*v)[k]);
      }
      set(std::move(out));
      set_int_dims(dims);
      return;
    }
    FloatTensor out{std::vector<int>(dims.begin(), dims.end()), {}};
    for (size_t k : index) {
      out.data.push_back(floats(i)->data[k]);
    }
    set(std::move(out));
  }
};

// Element i of a flat operand broadcast to `size` values (a single value repeats).
template <typename T>
T at(const std::vector<T>& v, size_t i) {
  return v.size() == 1 ? v[0] : v[i];
}

// ONNX's integer Mod: the remainder takes the divisor's sign (Python's %), or the dividend's
// with fmod = 1 (C's %).
int64_t int_mod(int64_t x, int64_t y, bool fmod) {
  const int64_t r = x % y;
  return !fmod && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

// x^y of integers (a negative exponent has no integer value but for x = +-1); false on
// overflow.
bool int_pow(int64_t x, int64_t y, int64_t& out) {
  if (y < 0) {
    out = x == 1 ? 1 : x == -1 ? (y % 2 ? -1 : 1) : 0;
    return x == 1 || x == -1;
  }
  out = 1;
  for (int64_t k = 0; k < y; ++k) {
    if (__builtin_mul_overflow(out, x, &out)) {
      return false;
    }
  }
  return true;
}

std::string binary_ints(const Operands& o, const std::vector<int64_t>& a,
                        const std::vector<int64_t>& b) {
  const std::string& op = o.n.op_type();
  const size_t size = std::max(a.size(), b.size());
  std::vector<int64_t> out(size);
  for (size_t i = 0; i < size; ++i) {
    const int64_t x = at(a, i), y = at(b, i);
    if ((op == "Div" || op == "Mod") && (y == 0 || (x == INT64_MIN && y == -1))) {
      return fmt::format("{} {} {} has no int64 value", x, op == "Div" ? "/" : "mod", y);
    }
    bool overflow = false;
    if (op == "Add") {
      overflow = __builtin_add_overflow(x, y, &out[i]);
    } else if (op == "Sub") {
      overflow = __builtin_sub_overflow(x, y, &out[i]);
    } else if (op == "Mul") {
      overflow = __builtin_mul_overflow(x, y, &out[i]);
    } else if (op == "Mod") {
      out[i] = int_mod(x, y, int_attr(o.n, "fmod", 0) != 0);
    } else if (op == "Pow") {
      overflow = !int_pow(x, y, out[i]);
    } else {
      out[i] = x / y;  // toward zero, as ONNX's integer Div
    }
    if (overflow) {
      return fmt::format("{} of {} and {} overflows int64", op, x, y);
    }
  }
  o.set(std::move(out));
  return {};
}

// Float Mod: C's fmod (fmod = 1), else the remainder with the divisor's sign.
float float_mod(float x, float y, bool fmod) {
  const float r = std::fmod(x, y);
  return !fmod && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

// The dims of the two-way (right-aligned) broadcast of `a` and `b`; false when they do not.
bool broadcast_dims(const std::vector<int>& a, const std::vector<int>& b, std::vector<int>& out) {
  const size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    const int x = k + a.size() >= rank ? a[k + a.size() - rank] : 1;
    const int y = k + b.size() >= rank ? b[k + b.size() - rank] : 1;
    if (x != y && x != 1 && y != 1) {
      return false;
    }
    out[k] = x == 1 ? y : x;
  }
  return true;
}

// For each value of a tensor of dims `out`, the index of the value of `in` (broadcast to it)
// that it reads.
std::vector<size_t> broadcast_sources(const std::vector<int>& in, const std::vector<int>& out) {
  std::vector<int> aligned(out.size(), 1);
  std::copy(in.begin(), in.end(), aligned.begin() + long(out.size() - in.size()));
  int64_t count = 1;
  for (int d : out) {
    count *= d;
  }
  std::vector<size_t> src(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, from = 0, stride = 1;
    for (size_t a = out.size(); a-- > 0;) {
      const int64_t k = rest % out[a];
      rest /= out[a];
      from += (aligned[a] == 1 ? 0 : k) * stride;
      stride *= aligned[a];
    }
    src[size_t(i)] = size_t(from);
  }
  return src;
}

std::string binary_floats(const Operands& o, const FloatTensor& a, const FloatTensor& b) {
  const std::string& op = o.n.op_type();
  FloatTensor out = a.size() >= b.size() ? a : b;
  std::vector<size_t> ia, ib;  // broadcast sources, when the dims differ and neither is 1 value
  if (a.dims != b.dims && a.size() != 1 && b.size() != 1) {
    if (!broadcast_dims(a.dims, b.dims, out.dims)) {
      return fmt::format("dims {} and {} do not broadcast", a.shape(), b.shape());
    }
    ia = broadcast_sources(a.dims, out.dims), ib = broadcast_sources(b.dims, out.dims);
    out.data.resize(ia.size());
  }
  for (size_t i = 0; i < out.data.size(); ++i) {
    const float x = ia.empty() ? at(a.data, i) : a.data[ia[i]];
    const float y = ib.empty() ? at(b.data, i) : b.data[ib[i]];
    out.data[i] = op == "Add"   ? x + y
                  : op == "Sub" ? x - y
                  : op == "Mul" ? x * y
                  : op == "Pow" ? std::pow(x, y)
                  : op == "Mod" ? float_mod(x, y, int_attr(o.n, "fmod", 0) != 0)
                                : x / y;
    if (!std::isfinite(out.data[i])) {
      return fmt::format("{} of {} and {} is not finite", op, x, y);
    }
  }
  o.set(std::move(out));
  return {};
}

// A binary operator of integer constants of different dims (Swin's index grids: a column
// [n, 1] plus a row [m] is the grid [n, m]), each broadcast to their common dims first.
std::string binary_int_grids(const Operands& o, const OnnxShape& da, const OnnxShape& db) {
  const std::vector<int> a(da.begin(), da.end()), b(db.begin(), db.end());
  std::vector<int> out;
  if (!broadcast_dims(a, b, out)) {
    return fmt::format("dims {} and {} do not broadcast", shape_text(da), shape_text(db));
  }
  if (std::accumulate(out.begin(), out.end(), int64_t{1}, std::multiplies<>()) > kMaxFoldedValues) {
    return fmt::format("the result is larger than {} values", kMaxFoldedValues);
  }
  std::vector<int64_t> x, y;
  for (size_t k : broadcast_sources(a, out)) {
    x.push_back((*o.ints(0))[k]);
  }
  for (size_t k : broadcast_sources(b, out)) {
    y.push_back((*o.ints(1))[k]);
  }
  std::string e = binary_ints(o, x, y);
  o.set_int_dims(OnnxShape(out.begin(), out.end()));
  return e;
}

// Add, Sub, Mul, Div, Mod, Pow of two integer or two float constants of one size (or one of one
// value, or integer ones of recorded dims that broadcast); Pow of a float base and an integer
// exponent is a float (the base's type).
std::string binary(const Operands& o) {
  const auto *ia = o.ints(0), *ib = o.ints(1);
  const FloatTensor *fa = o.floats(0), *fb = o.floats(1);
  const size_t na = ia ? ia->size() : fa ? fa->size() : 0;
  const size_t nb = ib ? ib->size() : fb ? fb->size() : 0;
  if (ia && ib && (o.has_dims(0) || o.has_dims(1))) {
    const OnnxShape da = o.dims(0), db = o.dims(1);
    if (na != 1 && nb != 1 && da != db) {
      return binary_int_grids(o, da, db);
    }
    std::string e = binary_ints(o, *ia, *ib);
    o.set_int_dims(na >= nb ? da : db);
    return e;
  }
  if (na != nb && na != 1 && nb != 1 && !(fa && fb)) {
    return fmt::format("operands of {} and {} values do not broadcast", na, nb);
  }
  if (ia && ib) {
    return binary_ints(o, *ia, *ib);
  }
  if (fa && fb) {
    return binary_floats(o, *fa, *fb);
  }
  if (fa && ib && o.n.op_type() == "Pow") {
    FloatTensor e{{int(ib->size())}, std::vector<float>(ib->begin(), ib->end())};
    return binary_floats(o, *fa, e);
  }
  return "its operands are an integer and a float constant";
}

std::string gather(const Operands& o) {
  const std::vector<int64_t>*data = o.ints(0), *index = o.ints(1);
  if (!data || !index || (int_attr(o.n, "axis", 0) != 0 && int_attr(o.n, "axis", 0) != -1)) {
    return "only a Gather of integer constants along axis 0 is computed";
  }
  std::vector<int64_t> out;
  for (int64_t i : *index) {
    if (!normalize_axis(i, data->size())) {
      return fmt::format("index {} is outside the {} values", i, data->size());
    }
    out.push_back((*data)[size_t(i)]);
  }
  o.set(std::move(out));
  return {};
}

// The flat indices of a strided walk: output axis a has out[a] elements, `step[a]` apart in the
// source, starting from `base` (a Slice's box, a Transpose's reordered strides).
std::vector<size_t> strided_walk(const OnnxShape& out, int64_t base,
                                 const std::vector<int64_t>& step) {
  int64_t count = 1;
  for (int64_t d : out) {
    count *= d;
  }
  std::vector<size_t> index;
  index.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, src = base;
    for (size_t a = out.size(); a-- > 0;) {
      src += (rest % out[a]) * step[a];
      rest /= out[a];
    }
    index.push_back(size_t(src));
  }
  return index;
}

// Row-major strides of `dims`.
std::vector<int64_t> strides_of(const OnnxShape& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t a = dims.size(); a-- > 1;) {
    s[a - 1] = s[a] * dims[a];
  }
  return s;
}

// Slice of a constant (integer or float, any rank) by constant starts, ends, axes and steps.
std::string slice(const Operands& o) {
  const OnnxShape in = o.dims(0);
  const std::vector<int64_t> starts = o.ints_or(1, {}), ends = o.ints_or(2, {});
  std::vector<int64_t> axes(starts.size()), steps = o.ints_or(4, {});
  std::iota(axes.begin(), axes.end(), 0);
  axes = o.ints_or(3, axes);
  steps.resize(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != axes.size()) {
    return "starts, ends, axes and steps of different lengths";
  }
  const std::vector<int64_t> stride = strides_of(in);
  OnnxShape out = in;
  std::vector<int64_t> step = stride;
  int64_t base = 0;
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = axes[k];
    if (!normalize_axis(a, in.size()) || steps[k] == 0) {
      return fmt::format("axis {} or step {} does not fit {}", axes[k], steps[k], shape_text(in));
    }
    const SliceRange r = slice_range(in[size_t(a)], starts[k], ends[k], steps[k]);
    out[size_t(a)] = r.count;
    base += r.start * stride[size_t(a)];
    step[size_t(a)] = r.step * stride[size_t(a)];
  }
  o.set_gathered(0, strided_walk(out, base, step), out);
  return {};
}

// Reshape of a constant: the values as they are, under the target's dims.
std::string reshape(const Operands& o) {
  const std::vector<int64_t>* target = o.ints(1);
  OnnxShape out;
  if (!target) {
    return "only a Reshape to a constant shape is computed";
  }
  if (std::string e = reshape_target(o.dims(0), *target, int_attr(o.n, "allowzero", 0), out);
      !e.empty()) {
    return e;
  }
  std::vector<size_t> index(
      size_t(std::accumulate(out.begin(), out.end(), int64_t{1}, std::multiplies<>())));
  std::iota(index.begin(), index.end(), size_t{0});
  o.set_gathered(0, index, out);
  return {};
}

// Transpose of a constant (perm absent: the axes reversed).
std::string transpose(const Operands& o) {
  const OnnxShape in = o.dims(0);
  std::vector<int64_t> perm(in.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  for (const auto& a : o.n.attribute()) {
    if (a.name() == "perm") {
      perm.assign(a.ints().begin(), a.ints().end());
    }
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t a = 0; a < sorted.size(); ++a) {
    if (sorted.size() != in.size() || sorted[a] != int64_t(a)) {
      return fmt::format("perm [{}] is not a permutation of {} axes", fmt::join(perm, ", "),
                         in.size());
    }
  }
  const std::vector<int64_t> stride = strides_of(in);
  OnnxShape out;
  std::vector<int64_t> step;
  for (int64_t p : perm) {
    out.push_back(in[size_t(p)]);
    step.push_back(stride[size_t(p)]);
  }
  o.set_gathered(0, strided_walk(out, 0, step), out);
  return {};
}

std::string cast(const Operands& o) {
  const int64_t to = int_attr(o.n, "to", 0);
  const bool to_float = to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::DOUBLE ||
                        to == onnx::TensorProto::FLOAT16;
  if (const std::vector<int64_t>* v = o.ints(0)) {
    if (!to_float) {
      o.set(*v);
      return {};
    }
    FloatTensor f{{int(v->size())}, {}};
    for (int64_t x : *v) {
      f.data.push_back(float(x));
    }
    o.set(std::move(f));
    return {};
  }
  const FloatTensor& f = *o.floats(0);
  if (to_float) {
    o.set(f);
    return {};
  }
  std::vector<int64_t> v;
  for (float x : f.data) {
    if (!std::isfinite(x) || std::fabs(x) > 9.0e18f) {
      return fmt::format("the value {} has no integer", x);
    }
    v.push_back(int64_t(x));  // ONNX casts toward zero
  }
  o.set(std::move(v));
  return {};
}

// Identity, Dropout, Unsqueeze, Squeeze: the values as they are (a flat integer constant has
// no dims to change; a float one keeps its values).
std::string same_values(const Operands& o) {
  if (const std::vector<int64_t>* v = o.ints(0)) {
    o.set(*v);
  } else if (o.n.op_type() == "Identity" || o.n.op_type() == "Dropout") {
    o.set(*o.floats(0));
  } else {
    return "only integer constants (shapes) are computed";
  }
  return {};
}

// Concat along `axis` of integer constants of recorded dims (Swin's index grids stacked into
// the index tuples of a ScatterND): every input the same dims but on the axis.
std::string concat_grids(const Operands& o) {
  OnnxShape out = o.dims(0);
  int64_t axis = int_attr(o.n, "axis", 0);
  if (!normalize_axis(axis, out.size())) {
    return fmt::format("axis {} is outside {} dims", axis, out.size());
  }
  const int64_t outer =
      std::accumulate(out.begin(), out.begin() + axis, int64_t{1}, std::multiplies<>());
  out[size_t(axis)] = 0;
  std::vector<int64_t> inner(size_t(o.n.input_size()));  // the values per outer index
  for (int i = 0; i < o.n.input_size(); ++i) {
    OnnxShape d = o.dims(i);
    if (!o.ints(i) || d.size() != out.size()) {
      return fmt::format("input {} is not an integer constant of {} dims", i, out.size());
    }
    const int64_t along = d[size_t(axis)];
    d[size_t(axis)] = out[size_t(axis)];
    if (d != out) {
      return fmt::format("input {} has dims {}, unlike input 0's but on axis {}", i,
                         shape_text(o.dims(i)), axis);
    }
    out[size_t(axis)] += along;
    inner[size_t(i)] = outer > 0 ? int64_t(o.ints(i)->size()) / outer : 0;
  }
  std::vector<int64_t> values;
  for (int64_t k = 0; k < outer; ++k) {
    for (int i = 0; i < o.n.input_size(); ++i) {
      const auto first = o.ints(i)->begin() + k * inner[size_t(i)];
      values.insert(values.end(), first, first + inner[size_t(i)]);
    }
  }
  o.set(std::move(values));
  o.set_int_dims(out);
  return {};
}

std::string concat(const Operands& o) {
  for (int i = 0; i < o.n.input_size(); ++i) {
    if (o.has_dims(i)) {
      return concat_grids(o);
    }
  }
  std::vector<int64_t> out;
  for (int i = 0; i < o.n.input_size(); ++i) {
    const std::vector<int64_t>* v = o.ints(i);
    if (!v) {
      return "only a Concat of integer constants (shapes) is computed";
    }
    out.insert(out.end(), v->begin(), v->end());
  }
  o.set(std::move(out));
  return {};
}

// Shape, with opset 15's start and end.
std::string shape(const Operands& o, const std::vector<int64_t>& input_shape) {
  const int64_t rank = int64_t(input_shape.size());
  const SliceRange r = slice_range(rank, int_attr(o.n, "start", 0), int_attr(o.n, "end", rank), 1);
  o.set(
      std::vector<int64_t>(input_shape.begin() + r.start, input_shape.begin() + r.start + r.count));
  return {};
}

// The value attribute of ConstantOfShape (absent: float 0): an int64 / bool or a float value.
bool fill_value(const onnx::NodeProto& n, int64_t& i, float& f) {
  i = 0, f = 0;
  for (const auto& a : n.attribute()) {
    if (a.name() != "value" || !a.has_t()) {
      continue;
    }
    const onnx::TensorProto& t = a.t();
    const std::string& raw = t.raw_data();
    switch (t.data_type()) {
      case onnx::TensorProto::INT64:
        if (raw.size() >= 8) {
          std::memcpy(&i, raw.data(), 8);
        } else if (t.int64_data_size()) {
          i = t.int64_data(0);
        }
        return true;
      case onnx::TensorProto::BOOL:
      case onnx::TensorProto::INT32:
        i = !raw.empty() ? raw[0] : t.int32_data_size() ? t.int32_data(0) : 0;
        return true;
      default:
        if (raw.size() >= 4) {
          std::memcpy(&f, raw.data(), 4);
        } else if (t.float_data_size()) {
          f = t.float_data(0);
        }
        return false;
    }
  }
  return false;
}

// ConstantOfShape: an integer fill (flat) or a float one (with the shape as its dims).
std::string constant_of_shape(const Operands& o) {
  const std::vector<int64_t>* shape = o.ints(0);
  if (!shape) {
    return "only a ConstantOfShape of an integer constant shape is computed";
  }
  std::vector<int> dims;
  int64_t count = 1;
  for (int64_t d : *shape) {
    if (d < 0 || d > kMaxFoldedValues || (count *= d) > kMaxFoldedValues) {
      return fmt::format("the shape [{}] is negative or larger than {} values",
                         fmt::join(*shape, ", "), kMaxFoldedValues);
    }
    dims.push_back(int(d));
  }
  int64_t i = 0;
  float f = 0;
  if (fill_value(o.n, i, f)) {
    o.set(std::vector<int64_t>(size_t(count), i));
  } else {
    o.set(FloatTensor{dims, std::vector<float>(size_t(count), f)});
  }
  return {};
}

// The values of operand k as doubles (integer or float), nullptr-free: false when absent.
bool values_of(const Operands& o, int k, std::vector<double>& v) {
  if (const std::vector<int64_t>* i = o.ints(k)) {
    v.assign(i->begin(), i->end());
    return true;
  }
  if (const FloatTensor* f = o.floats(k)) {
    v.assign(f->data.begin(), f->data.end());
    return true;
  }
  return false;
}

// Range of three scalar constants (the index grids of Swin's shifted-window mask): start,
// start + delta, ... before limit; integers, or floats when any operand is one.
std::string range(const Operands& o) {
  std::vector<double> start, limit, delta;
  if (!values_of(o, 0, start) || !values_of(o, 1, limit) || !values_of(o, 2, delta) ||
      start.size() != 1 || limit.size() != 1 || delta.size() != 1) {
    return "only a Range of three scalar constants is computed";
  }
  if (delta[0] == 0) {
    return "its delta is 0";
  }
  const double count = std::max(std::ceil((limit[0] - start[0]) / delta[0]), 0.0);
  if (count > double(kMaxFoldedValues)) {
    return fmt::format("{} values are more than {}", count, kMaxFoldedValues);
  }
  if (o.ints(0) && o.ints(1) && o.ints(2)) {
    std::vector<int64_t> out(static_cast<size_t>(count));
    for (size_t k = 0; k < out.size(); ++k) {
      out[k] = (*o.ints(0))[0] + int64_t(k) * (*o.ints(2))[0];
    }
    o.set(std::move(out));
    return {};
  }
  FloatTensor out{{int(count)}, std::vector<float>(size_t(count))};
  for (size_t k = 0; k < out.data.size(); ++k) {
    out.data[k] = float(start[0] + double(k) * delta[0]);
  }
  o.set(std::move(out));
  return {};
}

// Equal's and Where's flat broadcasting: operands whose dims are known (floats, integers of
// recorded dims) and differ, of more than one value, would broadcast to other values: refused.
std::string same_dims_or_one(const Operands& o) {
  std::vector<OnnxShape> known;
  for (int k = 0; k < o.n.input_size(); ++k) {
    if ((o.floats(k) && o.floats(k)->size() > 1) || (o.has_dims(k) && o.ints(k)->size() > 1)) {
      known.push_back(o.dims(k));
    }
  }
  for (const OnnxShape& d : known) {
    if (d != known[0]) {
      return fmt::format("operands of dims {} and {}: only equal dims or one value are computed",
                         shape_text(known[0]), shape_text(d));
    }
  }
  return {};
}

// Equal of two constants (integer 1 or 0 per value, as a bool tensor is held); Where of an
// integer condition and two integer or two float constants. Flat broadcasting: equal sizes, or
// one value.
std::string equal_or_where(const Operands& o) {
  const bool where = o.n.op_type() == "Where";
  std::vector<double> a, b, c;
  if (!values_of(o, 0, a) || !values_of(o, 1, b) || (where && !values_of(o, 2, c))) {
    return fmt::format("only a {} of constants is computed", o.n.op_type());
  }
  if (std::string e = same_dims_or_one(o); !e.empty()) {
    return e;
  }
  const size_t size = std::max({a.size(), b.size(), c.size()});
  for (const auto* v : {&a, &b, &c}) {
    if (!v->empty() && v->size() != size && v->size() != 1) {
      return fmt::format("operands of {} values do not broadcast to {}", v->size(), size);
    }
  }
  if (!where) {
    std::vector<int64_t> out(size);
    for (size_t i = 0; i < size; ++i) {
      out[i] = at(a, i) == at(b, i) ? 1 : 0;
    }
    o.set(std::move(out));
    return {};
  }
  if (o.ints(1) && o.ints(2)) {
    std::vector<int64_t> out(size);
    for (size_t i = 0; i < size; ++i) {
      out[i] = int64_t(at(a, i) != 0 ? at(b, i) : at(c, i));
    }
    o.set(std::move(out));
    return {};
  }
  if (!o.floats(1) || !o.floats(2)) {
    return "its operands are an integer and a float constant";
  }
  FloatTensor out = b.size() >= c.size() ? *o.floats(1) : *o.floats(2);
  out.data.resize(size);
  for (size_t i = 0; i < size; ++i) {
    out.data[i] = float(at(a, i) != 0 ? at(b, i) : at(c, i));
  }
  o.set(std::move(out));
  return {};
}

// Expand of a constant (float, or integer: Swin's index grids) to a shape (ONNX's two-way
// broadcasting, right-aligned).
std::string expand(const Operands& o) {
  const std::vector<int64_t>* shape = o.ints(1);
  if ((!o.floats(0) && !o.ints(0)) || !shape) {
    return "only an Expand of a constant to a constant shape is computed";
  }
  const OnnxShape dims = o.dims(0);
  const size_t rank = std::max(dims.size(), shape->size());
  std::vector<int> in(rank, 1), out(rank, 1);
  std::copy(dims.begin(), dims.end(), in.begin() + long(rank - dims.size()));
  int64_t count = 1;
  for (size_t a = 0; a < rank; ++a) {
    const int64_t s = a + shape->size() >= rank ? (*shape)[a + shape->size() - rank] : 1;
    if (s != 1 && in[a] != 1 && s != in[a]) {
      return fmt::format("dims {} do not broadcast to [{}]", shape_text(dims),
                         fmt::join(*shape, ", "));
    }
    out[a] = in[a] == 1 ? int(std::max<int64_t>(s, 1)) : in[a];
    if ((count *= out[a]) > kMaxFoldedValues) {
      return fmt::format("the result is larger than {} values", kMaxFoldedValues);
    }
  }
  o.set_gathered(0, broadcast_sources(in, out), OnnxShape(out.begin(), out.end()));
  return {};
}

// Not of a bool constant (held as integers 1 and 0).
std::string logical_not(const Operands& o) {
  const std::vector<int64_t>* v = o.ints(0);
  if (!v) {
    return "only a Not of a bool constant is computed";
  }
  std::vector<int64_t> out;
  for (int64_t x : *v) {
    out.push_back(x == 0 ? 1 : 0);
  }
  o.set(std::move(out));
  return {};
}

// Relu, Sigmoid, Exp and Clip (bounds: constant inputs 1 and 2, absent: none) of a float
// constant (Swin v2's continuous position bias and logit scale).
std::string float_unary(const Operands& o) {
  const FloatTensor* x = o.floats(0);
  const FloatTensor *lo = o.floats(1), *hi = o.floats(2);
  const std::string& op = o.n.op_type();
  if (!x || (lo && lo->size() != 1) || (hi && hi->size() != 1)) {
    return fmt::format("only a {} of a float constant (scalar bounds) is computed", op);
  }
  FloatTensor out = *x;
  for (float& v : out.data) {
    const double d = v;
    v = op == "Relu"      ? float(std::max(d, 0.0))
        : op == "Sigmoid" ? float(1.0 / (1.0 + std::exp(-d)))
        : op == "Exp"     ? float(std::exp(d))
                          : std::min(std::max(v, lo ? lo->data[0] : v), hi ? hi->data[0] : v);
    if (!std::isfinite(v)) {
      return fmt::format("{} of {} is not finite", op, d);
    }
  }
  o.set(std::move(out));
  return {};
}

// MatMul of float constants: [..., M, K] by a matrix [K, N] (the position bias MLP's Linears).
std::string float_matmul(const Operands& o) {
  const FloatTensor *a = o.floats(0), *b = o.floats(1);
  if (!a || !b || a->dims.empty() || b->dims.size() != 2 || a->dims.back() != b->dims[0]) {
    return "only a MatMul of a float constant by a float matrix of matching size is computed";
  }
  const size_t k = size_t(b->dims[0]), n = size_t(b->dims[1]), rows = a->size() / k;
  if (rows * n > size_t(kMaxFoldedValues)) {
    return fmt::format("the product is larger than {} values", kMaxFoldedValues);
  }
  FloatTensor out{a->dims, std::vector<float>(rows * n)};
  out.dims.back() = int(n);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < n; ++j) {
      double sum = 0;
      for (size_t i = 0; i < k; ++i) {
        sum += double(a->data[r * k + i]) * b->data[i * n + j];
      }
      out.data[r * n + j] = float(sum);
    }
  }
  o.set(std::move(out));
  return {};
}

// Unsqueeze and Squeeze (axes: input 1, opset 13) of a float constant or of an integer one of
// recorded dims (Swin's index grids): the values as they are, under the changed dims.
std::string unsqueeze_with_dims(const Operands& o) {
  OnnxShape dims = o.dims(0);
  const bool un = o.n.op_type() == "Unsqueeze";
  std::vector<int64_t> axes = o.ints_or(1, {});
  const size_t rank = dims.size() + (un ? axes.size() : 0);
  for (int64_t& a : axes) {
    if (!normalize_axis(a, rank)) {
      return fmt::format("axis {} is outside {} dims", a, rank);
    }
  }
  std::sort(axes.begin(), axes.end());
  if (un) {
    for (int64_t a : axes) {
      dims.insert(dims.begin() + a, 1);
    }
  } else {
    for (size_t k = axes.size(); k-- > 0;) {
      if (dims[size_t(axes[k])] != 1) {
        return fmt::format("axis {} of {} is not 1", axes[k], shape_text(o.dims(0)));
      }
      dims.erase(dims.begin() + axes[k]);
    }
    if (axes.empty()) {
      dims.erase(std::remove(dims.begin(), dims.end(), 1), dims.end());
    }
  }
  std::vector<size_t> index(o.ints(0) ? o.ints(0)->size() : o.floats(0)->size());
  std::iota(index.begin(), index.end(), size_t{0});
  o.set_gathered(0, index, dims);
  return {};
}

// Gather of a float constant by integer indices along axis 0 (the relative position bias table
// read at the relative position index): the indexed rows, the index's dims in front.
std::string float_gather(const Operands& o) {
  const FloatTensor* data = o.floats(0);
  const std::vector<int64_t>* index = o.ints(1);
  if (!data || data->dims.empty() || !index || int_attr(o.n, "axis", 0) != 0) {
    return "only a Gather of a float constant along axis 0 by integer indices is computed";
  }
  const size_t row = data->size() / size_t(data->dims[0]);
  OnnxShape idims = o.dims(1);
  FloatTensor out{std::vector<int>(idims.begin(), idims.end()), {}};
  if (index->size() == 1) {
    out.dims.clear();  // a scalar index: the row alone
  }
  out.dims.insert(out.dims.end(), data->dims.begin() + 1, data->dims.end());
  for (int64_t i : *index) {
    if (!normalize_axis(i, size_t(data->dims[0]))) {
      return fmt::format("index {} is outside the {} rows", i, data->dims[0]);
    }
    out.data.insert(out.data.end(), data->data.begin() + long(size_t(i) * row),
                    data->data.begin() + long(size_t(i + 1) * row));
  }
  o.set(std::move(out));
  return {};
}

// The flat offset into `dims` of the index tuple `idx` (k values, the first k axes), and the
// values it addresses (the rest of the axes); an error text for an index outside its axis.
std::string tuple_offset(const OnnxShape& dims, const int64_t* idx, size_t k, size_t& offset) {
  const std::vector<int64_t> stride = strides_of(dims);
  offset = 0;
  for (size_t j = 0; j < k; ++j) {
    int64_t i = idx[j];
    if (!normalize_axis(i, size_t(dims[j]))) {
      return fmt::format("index {} is outside axis {} of {}", idx[j], j, shape_text(dims));
    }
    offset += size_t(i * stride[j]);
  }
  return {};
}

// ScatterND of float constants: each index tuple (the indices' last axis, k values) addresses
// the values of the data's first k axes it names, which take the next updates (Swin's
// shifted-window mask: its regions numbered through index grids; Swin v2's zeroed key bias). A
// flat index (an initializer's, whose dims are not held) addresses rows, one value each.
std::string scatter_nd(const Operands& o) {
  const FloatTensor *data = o.floats(0), *updates = o.floats(2);
  const std::vector<int64_t>* index = o.ints(1);
  const OnnxShape idims = o.dims(1);
  if (!data || !updates || !index || data->dims.empty()) {
    return "only a ScatterND of float constants by integer indices is computed";
  }
  const OnnxShape dims(data->dims.begin(), data->dims.end());
  const size_t k = idims.size() > 1 ? size_t(idims.back()) : 1;
  if (k == 0 || k > dims.size()) {
    return fmt::format("index tuples of {} values do not fit {}", k, shape_text(dims));
  }
  const size_t tuples = index->size() / k;
  const size_t each =
      size_t(std::accumulate(dims.begin() + long(k), dims.end(), int64_t{1}, std::multiplies<>()));
  if (updates->size() != tuples * each) {
    return fmt::format("{} updates for {} indices of {} values each", updates->size(), tuples,
                       each);
  }
  FloatTensor out = *data;
  for (size_t t = 0; t < tuples; ++t) {
    size_t offset = 0;
    if (std::string e = tuple_offset(dims, index->data() + t * k, k, offset); !e.empty()) {
      return e;
    }
    std::copy(updates->data.begin() + long(t * each), updates->data.begin() + long((t + 1) * each),
              out.data.begin() + long(offset));
  }
  o.set(std::move(out));
  return {};
}

}  // namespace

bool folds_at_import(const std::string& op_type, bool inputs_constant) {
  static const std::set<std::string> on_constants = {
      "Identity", "Dropout", "Gather", "Unsqueeze", "Squeeze", "Concat",          "Cast",
      "Slice",    "Add",     "Sub",    "Mul",       "Div",     "ConstantOfShape", "Equal",
      "Where",    "Expand",  "Mod",    "Pow",       "Not",     "Reshape",         "Transpose",
      "Relu",     "Sigmoid", "Exp",    "Clip",      "MatMul",  "ScatterND",       "Range"};
  return op_type == "Shape" || (inputs_constant && on_constants.count(op_type) > 0);
}

std::string fold_constant_node(const onnx::NodeProto& n, const std::vector<int64_t>& input_shape,
                               ImportConstants c) {
  const Operands o{n, c};
  const std::string& t = n.op_type();
  if (t == "Shape") {
    return shape(o, input_shape);
  }
  if (t == "Gather") {
    return o.floats(0) ? float_gather(o) : gather(o);
  }
  if (t == "Slice") {
    return slice(o);
  }
  if (t == "Reshape") {
    return reshape(o);
  }
  if (t == "Transpose") {
    return transpose(o);
  }
  if (t == "Cast") {
    return cast(o);
  }
  if (t == "Concat") {
    return concat(o);
  }
  if (t == "Add" || t == "Sub" || t == "Mul" || t == "Div" || t == "Mod" || t == "Pow") {
    return binary(o);
  }
  if (t == "Not") {
    return logical_not(o);
  }
  if (t == "Relu" || t == "Sigmoid" || t == "Exp" || t == "Clip") {
    return float_unary(o);
  }
  if (t == "MatMul") {
    return float_matmul(o);
  }
  if (t == "ScatterND") {
    return scatter_nd(o);
  }
  if (t == "Range") {
    return range(o);
  }
  if ((t == "Unsqueeze" || t == "Squeeze") && (o.floats(0) || o.has_dims(0))) {
    return unsqueeze_with_dims(o);
  }
  if (t == "ConstantOfShape") {
    return constant_of_shape(o);
  }
  if (t == "Equal" || t == "Where") {
    return equal_or_where(o);
  }
  if (t == "Expand") {
    return expand(o);
  }
  return same_values(o);
}

}  // namespace vta::compiler

#endif
