// The import-time folds of shape arithmetic (frontend/constant_folding.h) that expand ViT's
// class token (ConstantOfShape, Equal, Where and Expand of constants) and that compute Swin's
// window padding, attention scale and (v2) position bias (Mod, Pow, Not, Reshape, Slice,
// Transpose, Relu, Sigmoid, Exp, Clip, MatMul, broadcast arithmetic, Gather of a table,
// ScatterND, Unsqueeze) and Swin's shifted-window mask (Range, integer index grids, ScatterND of
// index tuples, Sub, Equal and Where of the regions), each on an ONNX node built here and checked
// against values worked out by hand.
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>
#include <catch2/catch.hpp>

#include "frontend/constant_folding.h"

using namespace vta::compiler;

namespace {

struct Folder {
  std::map<std::string, FloatTensor> floats;
  std::map<std::string, std::vector<int64_t>> ints;
  std::map<std::string, std::vector<int64_t>> int_dims;

  // Folds node `op` of the named inputs into output "y"; its error text ("" when it folded).
  std::string fold(onnx::NodeProto n) {
    n.add_output("y");
    return fold_constant_node(n, {}, {floats, ints, &int_dims});
  }
  // Folds into output `out` instead.
  std::string fold_to(onnx::NodeProto n, const std::string& out) {
    n.add_output(out);
    return fold_constant_node(n, {}, {floats, ints, &int_dims});
  }
};

onnx::NodeProto node(const std::string& op, const std::vector<std::string>& inputs) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (const std::string& in : inputs) {
    n.add_input(in);
  }
  return n;
}

void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) {
    a->add_ints(x);
  }
}

// ConstantOfShape's `value` attribute: one int64 or float value.
void set_fill(onnx::NodeProto& n, int64_t i) {
  auto* a = n.add_attribute();
  a->set_name("value");
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(i);
}

void set_fill(onnx::NodeProto& n, float f) {
  auto* a = n.add_attribute();
  a->set_name("value");
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(f);
}

}  // namespace

TEST_CASE("ConstantOfShape folds to an integer or a float fill", "[frontend][fold]") {
  REQUIRE(folds_at_import("ConstantOfShape", true));
  REQUIRE_FALSE(folds_at_import("ConstantOfShape", false));
  Folder f;
  f.ints["s"] = {3};
  onnx::NodeProto n = node("ConstantOfShape", {"s"});
  set_fill(n, int64_t{1});
  REQUIRE(f.fold(n).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{1, 1, 1});

  f.ints["s2"] = {2, 3};
  onnx::NodeProto m = node("ConstantOfShape", {"s2"});
  set_fill(m, 0.5f);
  REQUIRE(f.fold(m).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{2, 3});
  CHECK(f.floats["y"].data == std::vector<float>(6, 0.5f));

  // No value attribute: float zeros.
  REQUIRE(f.fold(node("ConstantOfShape", {"s"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>(3, 0.0f));

  f.ints["neg"] = {2, -1};
  CHECK(f.fold(node("ConstantOfShape", {"neg"})).find("negative") != std::string::npos);
}

TEST_CASE("Equal and Where fold torch's -1 shape entries", "[frontend][fold]") {
  // torch's expand(1, -1, -1): Where(Equal(shape, -1 * ones), ones, shape) -> [1, 1, 1].
  Folder f;
  f.ints["shape"] = {1, -1, -1};
  f.ints["minus"] = {-1, -1, -1};
  f.ints["ones"] = {1, 1, 1};
  REQUIRE(f.fold(node("Equal", {"shape", "minus"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{0, 1, 1});
  f.ints["mask"] = f.ints["y"];
  REQUIRE(f.fold(node("Where", {"mask", "ones", "shape"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{1, 1, 1});

  // A scalar operand broadcasts; float branches keep float values.
  f.ints["m"] = {1, 0, 1, 0};
  f.floats["a"] = FloatTensor{{4}, {1, 2, 3, 4}};
  f.floats["b"] = FloatTensor{{}, {-8}};
  REQUIRE(f.fold(node("Where", {"m", "a", "b"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>{1, -8, 3, -8});
  f.ints["three"] = {3};
  f.ints["row"] = {1, 3, 5};
  REQUIRE(f.fold(node("Equal", {"row", "three"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{0, 1, 0});

  f.ints["two"] = {1, 2};
  CHECK(f.fold(node("Equal", {"row", "two"})).find("do not broadcast") != std::string::npos);
  CHECK(f.fold(node("Where", {"m", "a", "m"})).find("an integer and a float") != std::string::npos);
}

TEST_CASE("Expand folds a float constant by two-way broadcasting", "[frontend][fold]") {
  Folder f;
  // A class token [1, 1, 3] expanded to a batch of 2: [2, 1, 3], the row repeated.
  f.floats["tok"] = FloatTensor{{1, 1, 3}, {0.5f, -1, 2}};
  f.ints["to"] = {2, 1, 1};
  REQUIRE(f.fold(node("Expand", {"tok", "to"})).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{2, 1, 3});
  CHECK(f.floats["y"].data == std::vector<float>{0.5f, -1, 2, 0.5f, -1, 2});

  // [2, 1] to [2, 3] (a column repeated along the row) and to a higher rank [2, 2, 1].
  f.floats["col"] = FloatTensor{{2, 1}, {7, 9}};
  f.ints["wide"] = {2, 3};
  REQUIRE(f.fold(node("Expand", {"col", "wide"})).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{2, 3});
  CHECK(f.floats["y"].data == std::vector<float>{7, 7, 7, 9, 9, 9});
  f.ints["deep"] = {2, 1, 1};
  REQUIRE(f.fold(node("Expand", {"col", "deep"})).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{2, 2, 1});
  CHECK(f.floats["y"].data == std::vector<float>{7, 9, 7, 9});

  f.ints["bad"] = {3, 1};
  CHECK(f.fold(node("Expand", {"col", "bad"})).find("do not broadcast") != std::string::npos);
}

TEST_CASE("Mod, Pow and Not fold Swin's window padding and attention scale", "[frontend][fold]") {
  REQUIRE(folds_at_import("Mod", true));
  REQUIRE(folds_at_import("Pow", true));
  Folder f;
  // The padding of 4 tokens to windows of 7: (7 - 4 % 7) % 7 = 3; Mod takes the divisor's sign
  // (Python's %): -7 mod 3 = 2, 7 mod -3 = -2; with fmod = 1 the dividend's (C's %): -1.
  f.ints["x"] = {4, -7, 7, -7};
  f.ints["d"] = {7, 3, -3, 3};
  REQUIRE(f.fold(node("Mod", {"x", "d"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{4, 2, -2, 2});
  onnx::NodeProto c = node("Mod", {"x", "d"});
  set_int(c, "fmod", 1);
  REQUIRE(f.fold(c).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{4, -1, 1, -1});
  f.ints["zero"] = {0};
  CHECK(f.fold(node("Mod", {"x", "zero"})).find("no int64 value") != std::string::npos);

  // head_dim ** -0.5 of 32: 0.17677670; 2 ** 10 = 1024 of integers; an int64 overflow refused.
  f.floats["hd"] = FloatTensor{{}, {32}};
  f.floats["e"] = FloatTensor{{}, {-0.5f}};
  REQUIRE(f.fold(node("Pow", {"hd", "e"})).empty());
  CHECK(f.floats["y"].data[0] == Approx(0.17677670f));
  f.ints["two"] = {2};
  f.ints["ten"] = {10};
  REQUIRE(f.fold(node("Pow", {"two", "ten"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{1024});
  f.ints["big"] = {64};
  CHECK(f.fold(node("Pow", {"two", "big"})).find("overflows") != std::string::npos);

  f.ints["mask"] = {1, 0, 0};
  REQUIRE(f.fold(node("Not", {"mask"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{0, 1, 1});
}

TEST_CASE("Reshape, Slice and Transpose fold torch's pad list to ONNX order", "[frontend][fold]") {
  // F.pad's list (last dim first, begin and end per dim) [1..8]: Reshape [-1, 2] gives the rows
  // (1,2) (3,4) (5,6) (7,8); Slice step -1 reverses them; Transpose and Reshape [-1] read the
  // begins then the ends: [7, 5, 3, 1, 8, 6, 4, 2].
  Folder f;
  f.ints["pads"] = {1, 2, 3, 4, 5, 6, 7, 8};
  f.ints["rows"] = {-1, 2};
  REQUIRE(f.fold_to(node("Reshape", {"pads", "rows"}), "r").empty());
  CHECK(f.int_dims["r"] == std::vector<int64_t>{4, 2});
  f.ints["start"] = {-1};
  f.ints["end"] = {INT64_MIN + 1};
  f.ints["axis"] = {0};
  f.ints["step"] = {-1};
  REQUIRE(f.fold_to(node("Slice", {"r", "start", "end", "axis", "step"}), "s").empty());
  CHECK(f.ints["s"] == std::vector<int64_t>{7, 8, 5, 6, 3, 4, 1, 2});
  onnx::NodeProto t = node("Transpose", {"s"});
  set_ints(t, "perm", {1, 0});
  REQUIRE(f.fold_to(t, "t").empty());
  CHECK(f.int_dims["t"] == std::vector<int64_t>{2, 4});
  f.ints["flat"] = {-1};
  REQUIRE(f.fold(node("Reshape", {"t", "flat"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{7, 5, 3, 1, 8, 6, 4, 2});

  // A float constant [2, 3] sliced with step 2 along axis 1 and transposed.
  f.floats["m"] = FloatTensor{{2, 3}, {1, 2, 3, 4, 5, 6}};
  f.ints["zero"] = {0};
  f.ints["three"] = {3};
  f.ints["one"] = {1};
  f.ints["two"] = {2};
  REQUIRE(f.fold_to(node("Slice", {"m", "zero", "three", "one", "two"}), "ms").empty());
  CHECK(f.floats["ms"].dims == std::vector<int>{2, 2});
  CHECK(f.floats["ms"].data == std::vector<float>{1, 3, 4, 6});
  REQUIRE(f.fold(node("Transpose", {"ms"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>{1, 4, 3, 6});
  onnx::NodeProto bad = node("Transpose", {"ms"});
  set_ints(bad, "perm", {0, 0});
  CHECK(f.fold(bad).find("not a permutation") != std::string::npos);
}

TEST_CASE("Swin v2's position bias MLP and logit scale fold", "[frontend][fold]") {
  Folder f;
  // [[1, 2], [3, 4]] times [[1, 0, 2], [0, 1, 3]] = [[1, 2, 8], [3, 4, 18]].
  f.floats["a"] = FloatTensor{{1, 2, 2}, {1, 2, 3, 4}};
  f.floats["w"] = FloatTensor{{2, 3}, {1, 0, 2, 0, 1, 3}};
  REQUIRE(f.fold(node("MatMul", {"a", "w"})).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{1, 2, 3});
  CHECK(f.floats["y"].data == std::vector<float>{1, 2, 8, 3, 4, 18});
  // A bias [10, 20] added to [1, 2, 2] by broadcasting: [[11, 22], [13, 24]]; then Relu.
  f.floats["b"] = FloatTensor{{2}, {10, -20}};
  REQUIRE(f.fold_to(node("Add", {"b", "a"}), "ab").empty());
  CHECK(f.floats["ab"].dims == std::vector<int>{1, 2, 2});
  CHECK(f.floats["ab"].data == std::vector<float>{11, -18, 13, -16});
  REQUIRE(f.fold(node("Relu", {"ab"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>{11, 0, 13, 0});

  f.floats["z"] = FloatTensor{{2}, {0, 1}};
  REQUIRE(f.fold(node("Sigmoid", {"z"})).empty());
  CHECK(f.floats["y"].data[0] == 0.5f);
  CHECK(f.floats["y"].data[1] == Approx(0.73105858f));
  REQUIRE(f.fold(node("Exp", {"z"})).empty());
  CHECK(f.floats["y"].data[0] == 1.0f);
  CHECK(f.floats["y"].data[1] == Approx(2.7182818f));
  // The logit scale clipped at log(100) = 4.6051702 (Clip's min absent).
  f.floats["s"] = FloatTensor{{3, 1, 1}, {5, 1, -2}};
  f.floats["hi"] = FloatTensor{{}, {4.6051702f}};
  REQUIRE(f.fold(node("Clip", {"s", "", "hi"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>{4.6051702f, 1, -2});

  // The bias table [[1, 2], [3, 4], [5, 6]] read at the index [2, 0, 2]: rows 2, 0, 2.
  f.floats["table"] = FloatTensor{{3, 2}, {1, 2, 3, 4, 5, 6}};
  f.ints["index"] = {2, 0, 2};
  REQUIRE(f.fold(node("Gather", {"table", "index"})).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{3, 2});
  CHECK(f.floats["y"].data == std::vector<float>{5, 6, 1, 2, 5, 6});
  f.ints["far"] = {3};
  CHECK(f.fold(node("Gather", {"table", "far"})).find("outside") != std::string::npos);

  // The key bias zeroed: values 2 and 3 of [1..6] replaced by the updates [0, 0].
  f.floats["bias"] = FloatTensor{{6}, {1, 2, 3, 4, 5, 6}};
  f.ints["at"] = {2, 3};
  f.int_dims["at"] = {2, 1};
  f.floats["upd"] = FloatTensor{{2}, {0, 0}};
  REQUIRE(f.fold(node("ScatterND", {"bias", "at", "upd"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>{1, 2, 0, 0, 5, 6});

  f.ints["front"] = {0};
  REQUIRE(f.fold(node("Unsqueeze", {"bias", "front"})).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{1, 6});
}

TEST_CASE("Range folds integer and float sequences", "[frontend][fold]") {
  REQUIRE(folds_at_import("Range", true));
  REQUIRE_FALSE(folds_at_import("Range", false));
  Folder f;
  // range(0, 14, 1): a padded axis of 14 tokens; range(10, 1, -3) = 10, 7, 4; range(5, 5, 1) is
  // empty.
  f.ints["zero"] = {0}, f.ints["fourteen"] = {14}, f.ints["one"] = {1};
  REQUIRE(f.fold(node("Range", {"zero", "fourteen", "one"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
  f.ints["ten"] = {10}, f.ints["minus3"] = {-3};
  REQUIRE(f.fold(node("Range", {"ten", "one", "minus3"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{10, 7, 4});
  f.ints["five"] = {5};
  REQUIRE(f.fold(node("Range", {"five", "five", "one"})).empty());
  CHECK(f.ints["y"].empty());
  // Floats: 0.5, 1.25, 2 (ceil((2.5 - 0.5) / 0.75) = 3 values).
  f.floats["a"] = FloatTensor{{}, {0.5f}}, f.floats["b"] = FloatTensor{{}, {2.5f}};
  f.floats["d"] = FloatTensor{{}, {0.75f}};
  REQUIRE(f.fold(node("Range", {"a", "b", "d"})).empty());
  CHECK(f.floats["y"].dims == std::vector<int>{3});
  CHECK(f.floats["y"].data == std::vector<float>{0.5f, 1.25f, 2.0f});

  f.ints["nil"] = {0};
  CHECK(f.fold(node("Range", {"zero", "ten", "nil"})) == "its delta is 0");
  f.ints["pair"] = {1, 2};
  CHECK(f.fold(node("Range", {"zero", "pair", "one"})).find("three scalar") != std::string::npos);
}

TEST_CASE("Integer index grids broadcast, expand, unsqueeze and concatenate with their dims",
          "[frontend][fold]") {
  // torch's advanced indexing of mask[0:3, 1:3]: the row indices [0, 1, 2] as a column [3, 1]
  // plus the column indices [1, 2] give the grid [3, 2]; each index expanded to it, unsqueezed
  // to [3, 2, 1] and concatenated along the last axis into the (row, col) tuples [3, 2, 2].
  Folder f;
  f.ints["rows"] = {0, 1, 2};
  f.ints["col"] = {-1, 1};
  REQUIRE(f.fold_to(node("Reshape", {"rows", "col"}), "r").empty());
  f.ints["cols"] = {1, 2};
  REQUIRE(f.fold_to(node("Add", {"r", "cols"}), "sum").empty());
  CHECK(f.int_dims["sum"] == std::vector<int64_t>{3, 2});
  CHECK(f.ints["sum"] == std::vector<int64_t>{1, 2, 2, 3, 3, 4});
  f.ints["grid"] = {3, 2};
  REQUIRE(f.fold_to(node("Expand", {"r", "grid"}), "er").empty());
  CHECK(f.int_dims["er"] == std::vector<int64_t>{3, 2});
  CHECK(f.ints["er"] == std::vector<int64_t>{0, 0, 1, 1, 2, 2});
  REQUIRE(f.fold_to(node("Expand", {"cols", "grid"}), "ec").empty());
  CHECK(f.ints["ec"] == std::vector<int64_t>{1, 2, 1, 2, 1, 2});
  f.ints["last"] = {-1};
  REQUIRE(f.fold_to(node("Unsqueeze", {"er", "last"}), "ur").empty());
  CHECK(f.int_dims["ur"] == std::vector<int64_t>{3, 2, 1});
  REQUIRE(f.fold_to(node("Unsqueeze", {"ec", "last"}), "uc").empty());
  onnx::NodeProto cat = node("Concat", {"ur", "uc"});
  set_int(cat, "axis", -1);
  REQUIRE(f.fold(cat).empty());
  CHECK(f.int_dims["y"] == std::vector<int64_t>{3, 2, 2});
  CHECK(f.ints["y"] == std::vector<int64_t>{0, 1, 0, 2, 1, 1, 1, 2, 2, 1, 2, 2});

  // Grids of equal size but other dims broadcast too: [2, 1] * [1, 2] is [2, 2].
  f.ints["c2"] = {2, 3};
  f.int_dims["c2"] = {2, 1};
  f.ints["r2"] = {5, 7};
  f.int_dims["r2"] = {1, 2};
  REQUIRE(f.fold(node("Mul", {"c2", "r2"})).empty());
  CHECK(f.ints["y"] == std::vector<int64_t>{10, 14, 15, 21});
  // Grids that do not broadcast, or concatenate along an axis of other sizes, are refused.
  CHECK(f.fold(node("Add", {"sum", "c2"})).find("do not broadcast") != std::string::npos);
  onnx::NodeProto mixed = node("Concat", {"ur", "c2"});
  set_int(mixed, "axis", -1);
  CHECK(f.fold(mixed).find("input 1") != std::string::npos);
}

TEST_CASE("ScatterND folds index tuples into a mask and its broadcast arithmetic",
          "[frontend][fold]") {
  // A 3x4 zero mask; the tuples (0, 1) (0, 2) (2, 3) take 1, 2, 3.
  Folder f;
  f.floats["mask"] = FloatTensor{{3, 4}, std::vector<float>(12, 0)};
  f.ints["at"] = {0, 1, 0, 2, 2, 3};
  f.int_dims["at"] = {3, 2};
  f.floats["upd"] = FloatTensor{{3}, {1, 2, 3}};
  REQUIRE(f.fold_to(node("ScatterND", {"mask", "at", "upd"}), "m").empty());
  CHECK(f.floats["m"].dims == std::vector<int>{3, 4});
  CHECK(f.floats["m"].data == std::vector<float>{0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 3});
  // Tuples of one index replace whole rows: row 1 of [3, 4] takes [4, 5, 6, 7].
  f.ints["row"] = {1};
  f.int_dims["row"] = {1, 1};
  f.floats["r"] = FloatTensor{{1, 4}, {4, 5, 6, 7}};
  REQUIRE(f.fold(node("ScatterND", {"m", "row", "r"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>{0, 1, 2, 0, 4, 5, 6, 7, 0, 0, 0, 3});
  f.ints["far"] = {0, 4};
  f.int_dims["far"] = {1, 2};
  f.floats["one"] = FloatTensor{{1}, {9}};
  CHECK(f.fold(node("ScatterND", {"mask", "far", "one"})).find("outside axis 1") !=
        std::string::npos);
  CHECK(f.fold(node("ScatterND", {"mask", "at", "one"})).find("1 updates for 3 indices") !=
        std::string::npos);

  // The window mask's region ids a = [[0, 1]] (1 window of 2 tokens): a.unsqueeze(1) -
  // a.unsqueeze(2) is [1, 2, 2] = [[0, 1], [-1, 0]] (equal sizes, other dims: broadcast), and
  // Where(Equal(d, 0), 0, -100) the additive mask [[0, -100], [-100, 0]].
  f.floats["a1"] = FloatTensor{{1, 1, 2}, {0, 1}};
  f.floats["a2"] = FloatTensor{{1, 2, 1}, {0, 1}};
  REQUIRE(f.fold_to(node("Sub", {"a1", "a2"}), "d").empty());
  CHECK(f.floats["d"].dims == std::vector<int>{1, 2, 2});
  CHECK(f.floats["d"].data == std::vector<float>{0, 1, -1, 0});
  f.floats["zero"] = FloatTensor{{}, {0}};
  f.floats["minus100"] = FloatTensor{{}, {-100}};
  REQUIRE(f.fold_to(node("Equal", {"d", "zero"}), "same").empty());
  REQUIRE(f.fold(node("Where", {"same", "zero", "minus100"})).empty());
  CHECK(f.floats["y"].data == std::vector<float>{0, -100, -100, 0});
  // Equal of equal sizes but other dims would broadcast to more values: refused.
  CHECK(f.fold(node("Equal", {"a1", "a2"})).find("only equal dims") != std::string::npos);
}
