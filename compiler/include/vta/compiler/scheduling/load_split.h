// Cutting a 2D load into several LOAD instructions of bounded size.
//
// A LOAD posts all of its bursts at once and the memory port returns read data in grant order,
// so a read of the compute unit (micro-ops, bias, residual) that arrives while the load unit
// moves a large window waits for the whole window. Loads of at most `max_bytes` each bound that
// wait; the pieces write exactly the SRAM elements and read exactly the DRAM bytes of the
// original load (zero padding included), in the same order.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/compiler/codegen/program_sink.h"

namespace vta::compiler {

// Pieces of `load` (elements of `elem_bytes` DRAM bytes), each moving at most `max_bytes` of
// DRAM data where a single row allows it: whole rows when a row fits, else pieces of one row
// (only for rows without horizontal padding; a padded row stays whole). max_bytes = 0: no cut.
std::vector<Load2D> split_load(const Load2D& load, uint32_t elem_bytes, uint32_t max_bytes);

}  // namespace vta::compiler
