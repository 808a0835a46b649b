// Plain C++ reference of one ALU lane (vta-reference.md 3.6, DESIGN.md section 4), shared by
// the test suites that check fsim, cycle, rtl and the runtime against it.
#pragma once

#include <cstdint>

#include "vta/sim/isa.h"

namespace vta::testref {

// C semantics on int32 with wrapping ADD/MUL. SHR: b >= 0 arithmetic right shift (b >= 32 acts
// as 31), b < 0 left shift by -b (-b >= 32 gives 0).
inline int32_t ref_alu(uint32_t op, int32_t a, int32_t b) {
  switch (op) {
    case kAluMin:
      return a < b ? a : b;
    case kAluMax:
      return a > b ? a : b;
    case kAluAdd:
      return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    case kAluMul:
      return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
    case kAluShr:
      if (b >= 32) {
        return a < 0 ? -1 : 0;
      }
      if (b >= 0) {
        return a >> b;
      }
      if (b <= -32) {
        return 0;
      }
      return static_cast<int32_t>(static_cast<uint32_t>(a) << -b);
    default:
      return a;
  }
}

}  // namespace vta::testref
