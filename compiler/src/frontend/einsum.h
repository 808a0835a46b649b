// ONNX Einsum equations that are batched matrix products ("bhid,bhjd->bhij",
// "bhij,bhjd->bhid": attention's scores and weighted values), parsed into what the importer
// builds of them: a batch_matmul of the two operands' 4-D views, either operand's last two axes
// swapped first (a permute) when the equation reads it transposed. Internal to the front end.
#pragma once

#include <string>

namespace vta::compiler {

struct EinsumMatmul {
  int rank = 0;              // of the operands and the output (2 to 6)
  bool transpose_a = false;  // A holds [..., K, I] (the product reads A^T)
  bool transpose_b = false;  // B holds [..., J, K] (the product reads B^T)
};

// Parses `equation` (spaces ignored) into `out`; "" when it is a batched matrix product:
// two operands and the output of one rank r >= 2, the same labels on their first r - 2 axes
// (the batch), and on the last two axes A's row label I and B's column label J as the output's,
// the contracted label K on the other axis of each operand. Otherwise the text says why.
std::string parse_einsum_matmul(const std::string& equation, EinsumMatmul& out);

}  // namespace vta::compiler
