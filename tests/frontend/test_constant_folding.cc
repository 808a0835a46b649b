// The import-time folds of shape arithmetic (frontend/constant_folding.h) that expand ViT's
// class token: ConstantOfShape, Equal, Where and Expand of constants, each on an ONNX node built
// here and checked against values worked out by hand.
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

  // Folds node `op` of the named inputs into output "y"; its error text ("" when it folded).
  std::string fold(onnx::NodeProto n) {
    n.add_output("y");
    return fold_constant_node(n, {}, {floats, ints});
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
