// MaxViT's operators built of the graph's own: the Einsum equations that are batched matrix
// products (frontend/einsum.h), and their import with 5-D and 6-D Transposes (as 4-D permutes)
// from ONNX models built here, run by the float interpreter and checked against products worked
// out by hand and against a plain N-D transpose written here.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <unistd.h>

#include <onnx/onnx_pb.h>
#include <catch2/catch.hpp>

#include "frontend/einsum.h"
#include "vta/compiler/frontend/onnx_import.h"
#include "vta/sim/error.h"

using namespace vta::compiler;

namespace {

// An ONNX model of one float input `x` (its dims) built node by node.
struct Model {
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  int shapes = 0;

  explicit Model(const std::vector<int>& dims) {
    m.set_ir_version(7);
    m.add_opset_import()->set_version(13);
    auto* in = g->add_input();
    in->set_name("x");
    in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    for (int d : dims) {
      in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    }
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                        const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type(op), n->set_name(out), n->add_output(out);
    for (const std::string& i : in) {
      n->add_input(i);
    }
    return n;
  }
  std::string reshape(const std::string& in, const std::vector<int64_t>& to,
                      const std::string& out) {
    auto* t = g->add_initializer();
    t->set_name(out + "_shape"), t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(to.size()));
    for (int64_t d : to) {
      t->add_int64_data(d);
    }
    node("Reshape", {in, t->name()}, out);
    return out;
  }
  std::string einsum(const std::string& a, const std::string& b, const std::string& eq,
                     const std::string& out) {
    auto* at = node("Einsum", {a, b}, out)->add_attribute();
    at->set_name("equation"), at->set_type(onnx::AttributeProto::STRING), at->set_s(eq);
    return out;
  }
  std::string transpose(const std::string& in, const std::vector<int64_t>& perm,
                        const std::string& out) {
    auto* at = node("Transpose", {in}, out)->add_attribute();
    at->set_name("perm"), at->set_type(onnx::AttributeProto::INTS);
    for (int64_t p : perm) {
      at->add_ints(p);
    }
    return out;
  }
  // Imports the model with output `out` and runs it in float on `x`.
  std::vector<float> run(const std::string& out, const std::vector<int>& in_view,
                         std::vector<float> x) {
    g->add_output()->set_name(out);
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("vta_einsum_" + std::to_string(::getpid()) + "_" + out + ".onnx");
    {
      std::ofstream f(path, std::ios::binary);
      m.SerializeToOstream(&f);
    }
    FloatGraph graph;
    try {
      graph = import_onnx(path.string());
    } catch (...) {
      std::filesystem::remove(path);
      throw;
    }
    std::filesystem::remove(path);
    auto t = run_float(graph, FloatTensor{in_view, std::move(x)}, FloatKernels::kPlain);
    return t.at(graph.output).data;
  }
};

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

// y = x transposed by perm (output axis i is input axis perm[i]), by index arithmetic.
std::vector<float> transpose_reference(const std::vector<float>& x, const std::vector<int>& dims,
                                       const std::vector<int>& perm) {
  const size_t r = dims.size();
  std::vector<size_t> in_stride(r, 1);
  for (size_t a = r - 1; a > 0; --a) {
    in_stride[a - 1] = in_stride[a] * size_t(dims[a]);
  }
  std::vector<int> out_dims(r), index(r, 0);
  for (size_t a = 0; a < r; ++a) {
    out_dims[a] = dims[size_t(perm[a])];
  }
  std::vector<float> y;
  for (size_t k = 0; k < x.size(); ++k) {
    size_t src = 0;
    for (size_t a = 0; a < r; ++a) {
      src += size_t(index[a]) * in_stride[size_t(perm[a])];
    }
    y.push_back(x[src]);
    for (size_t a = r; a-- > 0;) {  // the next output index, the last axis fastest
      if (++index[a] < out_dims[a]) {
        break;
      }
      index[a] = 0;
    }
  }
  return y;
}

}  // namespace

TEST_CASE("Einsum equations of batched matrix products parse", "[frontend][einsum]") {
  EinsumMatmul m;
  REQUIRE(parse_einsum_matmul("B G H I D, B G H J D -> B G H I J", m).empty());
  CHECK((m.rank == 5 && !m.transpose_a && m.transpose_b));
  REQUIRE(parse_einsum_matmul("bhij,bhjd->bhid", m).empty());
  CHECK((m.rank == 4 && !m.transpose_a && !m.transpose_b));
  REQUIRE(parse_einsum_matmul("bki,bkj->bij", m).empty());
  CHECK((m.rank == 3 && m.transpose_a && !m.transpose_b));
  REQUIRE(parse_einsum_matmul("ij,jk->ik", m).empty());
  CHECK(m.rank == 2);
}

TEST_CASE("Einsum equations that are not batched matrix products say why", "[frontend][einsum]") {
  EinsumMatmul m;
  CHECK(parse_einsum_matmul("bij,bjk", m) == "it has no explicit output ('->')");
  CHECK(parse_einsum_matmul("ij->ji", m) == "only an equation of two operands is supported");
  CHECK(parse_einsum_matmul("...ij,...jk->...ik", m) ==
        "term '...ij' has a character other than a letter (no ellipsis)");
  CHECK(parse_einsum_matmul("bii,bij->bij", m) == "term 'bii' repeats a label (no diagonals)");
  CHECK(parse_einsum_matmul("bij,bjk->bki", m) ==
        "the output's last two axes must be A's rows and B's columns");
  CHECK(parse_einsum_matmul("bij,cjk->bik", m) ==
        "the operands and the output must share their leading (batch) axes in order");
  CHECK(parse_einsum_matmul("bij,bkl->bil", m) ==
        "A and B must share one contracted label on their last two axes");
  CHECK(parse_einsum_matmul("bij,bjk->bk", m) ==
        "only operands and an output of one rank, 2 to 6, are supported");
}

TEST_CASE("Einsum imports as a batch_matmul: Q K^T and A V worked out by hand",
          "[frontend][einsum]") {
  {  // x x^T of [[1,2,3],[4,5,6]]: rows 1.1, 1.2, 2.2 = 14, 32, 77
    Model md({1, 1, 2, 3});
    md.einsum("x", "x", "bhid,bhjd->bhij", "y");
    CHECK(md.run("y", {1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}) == std::vector<float>{14, 32, 32, 77});
  }
  {  // [[1,2],[3,4]]^2 = [[7,10],[15,22]]
    Model md({1, 1, 2, 2});
    md.einsum("x", "x", "bhij,bhjd->bhid", "y");
    CHECK(md.run("y", {1, 1, 2, 2}, {1, 2, 3, 4}) == std::vector<float>{7, 10, 15, 22});
  }
  {  // 5-D, two planes of [[a,b],[c,d]] times their transposes: [[0,1],[2,3]] -> 1 3 3 13;
     // [[4,5],[6,7]] -> 41 59 59 85
    Model md({1, 1, 4, 2});
    const std::string v = md.reshape("x", {1, 2, 1, 2, 2}, "v");
    md.einsum(v, v, "B G H I D, B G H J D -> B G H I J", "s");
    md.reshape("s", {1, 2, 2, 2}, "y");
    CHECK(md.run("y", {1, 1, 4, 2}, iota(8)) == std::vector<float>{1, 3, 3, 13, 41, 59, 59, 85});
  }
}

TEST_CASE("An Einsum that is not a batched product is an error quoting it", "[frontend][einsum]") {
  Model md({1, 1, 2, 2});
  md.einsum("x", "x", "bhij,bhjk->bhki", "y");
  CHECK_THROWS_WITH(md.run("y", {1, 1, 2, 2}, iota(4)),
                    Catch::Contains("node 'y' (Einsum): equation 'bhij,bhjk->bhki' is not a "
                                    "batched matrix product: the output's last two axes must be "
                                    "A's rows and B's columns"));
}

TEST_CASE("5-D and 6-D Transposes (MaxViT's partitions) match a plain transpose",
          "[frontend][einsum]") {
  {  // the block partition of a 1x4x6x6 map into 3x3 windows, and its inverse
    Model md({1, 4, 6, 6});
    md.reshape("x", {1, 4, 2, 3, 2, 3}, "p");
    md.transpose("p", {0, 2, 4, 3, 5, 1}, "t");
    md.reshape("t", {1, 4, 9, 4}, "y");
    const std::vector<float> x = iota(144);
    CHECK(md.run("y", {1, 4, 6, 6}, x) ==
          transpose_reference(x, {1, 4, 2, 3, 2, 3}, {0, 2, 4, 3, 5, 1}));
  }
  {  // heads split off the features: [1, 3, 4, 2, 2] -> [1, 3, 2, 4, 2]
    Model md({1, 3, 4, 4});
    md.reshape("x", {1, 3, 4, 2, 2}, "h");
    md.transpose("h", {0, 1, 3, 2, 4}, "t");
    md.reshape("t", {1, 3, 8, 2}, "y");
    const std::vector<float> x = iota(48);
    CHECK(md.run("y", {1, 3, 4, 4}, x) == transpose_reference(x, {1, 3, 4, 2, 2}, {0, 1, 3, 2, 4}));
  }
}
