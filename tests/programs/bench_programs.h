// Benchmark programs shared by the backends' benchmarks: a GEMM-heavy 3x3 convolution shaped
// like ResNet-18 C8 (14x14, 256 -> 256 channels, pad 1, stride 1: 115.6 M MACs on BATCH 1) and a
// memory-bound stream (large INP/WGT loads and stores, almost no compute), both built directly
// as instruction streams for any config.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "program_builder.h"

namespace vta::testprog {

// A 3x3, pad 1, stride 1 convolution on one batch tile: h x w pixels, ic -> oc channels.
struct ConvSpec {
  uint32_t h = 14, w = 14, ic = 256, oc = 256;
};

struct ConvProgram {
  uint64_t macs = 0;           // BATCH * h * w * ic * oc * 9
  DeviceBuffer inp, wgt, out;  // DRAM tensors (tiled layouts below)
  ConvSpec spec;
};

// Builds conv -> >> 8 -> clip [0, 127] -> int8 into `pb`, with random int8 data from `rng`.
// DRAM layouts (tiles): inp [IC/BLOCK_IN][h][w], wgt [OC/BLOCK_OUT][IC/BLOCK_IN][3][3],
// out [OC/BLOCK_OUT][h][w]. Schedule: per output-channel block and per pass over as many input
// channel blocks as the inp buffer holds, one GEMM whose outer loop walks output rows, inner
// loop input-channel blocks, and whose 9*w micro-ops cover the kernel window x output columns.
// Throws Error if the config's buffers cannot hold one padded input plane.
ConvProgram build_conv3x3_program(ProgramBuilder& pb, const ConvSpec& spec, std::mt19937& rng);
// Plain C++ reference of the same computation (int8 [OCB][h][w] tiles, like `out`).
std::vector<int8_t> reference_conv3x3(const HwConfig& cfg, const ConvProgram& prog);

struct MemoryBoundProgram {
  uint64_t bytes_loaded = 0, bytes_stored = 0;
};
// `rounds` x (LOAD INP filling the inp buffer, LOAD WGT filling the wgt buffer, one reset GEMM,
// STORE of as many out tiles as the inp load brought in).
MemoryBoundProgram build_memory_bound_program(ProgramBuilder& pb, uint32_t rounds);

}  // namespace vta::testprog
