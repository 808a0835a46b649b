#include "vta/compiler/codegen/lowered_program.h"

#include <fmt/format.h>

#include "vta/compiler/codegen/conv_codegen.h"
#include "vta/compiler/codegen/loop_fold.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

namespace {

const char* const kLegend =
    "// VTALoadBuffer2D(src, src_elem_offset, x_size, y_size, x_stride, x_pad_before,\n"
    "//                 y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type)\n"
    "// VTAStoreBuffer2D(src_sram_index, src_memory_type, dst, dst_elem_offset, x_size, y_size,\n"
    "//                  x_stride)\n"
    "// VTAUopLoopBegin(extent, dst_factor, src_factor, wgt_factor)\n"
    "// VTAUopPush(mode, reset_out, dst_index, src_index, wgt_index, alu_opcode, use_imm, imm)\n"
    "// VTADepPush / VTADepPop(from_stage, to_stage)\n";

const char* stage_name(Stage s) {
  switch (s) {
    case kStageLoad:
      return "LOAD";
    case kStageCompute:
      return "COMPUTE";
    case kStageStore:
      return "STORE";
    default:
      return "NONE";
  }
}

LoopNest load_call(const RecordingSink& sink, const Load2D& l) {
  return LoopNest::call(
      {fmt::format("VTALoadBuffer2D({}, ", sink.buffer_name(l.src)),
       fmt::format(", {}, {}, {}, {}, {}, {}, {}, ", l.x_size, l.y_size, l.x_stride, l.x_pad_before,
                   l.y_pad_before, l.x_pad_after, l.y_pad_after),
       fmt::format(", {})", mem_type_name(l.memory_type))},
      {l.src_elem_offset, l.sram_index});
}

LoopNest store_call(const RecordingSink& sink, const Store2D& s) {
  return LoopNest::call(
      {"VTAStoreBuffer2D(",
       fmt::format(", {}, {}, ", mem_type_name(s.memory_type), sink.buffer_name(s.dst)),
       fmt::format(", {}, {}, {})", s.x_size, s.y_size, s.x_stride)},
      {s.sram_index, s.dst_elem_offset});
}

LoopNest program_call(const RecordingSink& sink, const RecordedCall& c) {
  switch (c.kind) {
    case CallKind::kLoad:
      return load_call(sink, c.load);
    case CallKind::kStore:
      return store_call(sink, c.store);
    case CallKind::kKernel:
      return LoopNest::call(
          {fmt::format("{}(uop_kernel_{})",
                       sink.kernels()[c.kernel].gemm ? "VTAPushGEMMOp" : "VTAPushALUOp", c.kernel)},
          {});
    case CallKind::kDepPush:
    case CallKind::kDepPop:
      return LoopNest::call(
          {fmt::format("{}({}, {})", c.kind == CallKind::kDepPush ? "VTADepPush" : "VTADepPop",
                       stage_name(c.from), stage_name(c.to))},
          {});
    case CallKind::kSync:
      break;
  }
  return LoopNest::call({"VTASynchronize()"}, {});
}

// The calls the kernel's finit makes, the micro-ops folded into loops.
std::string format_kernel(const MicroKernel& k, size_t number) {
  std::string out = fmt::format("uop_kernel_{} {{  // {}{}, {} uops\n", number,
                                k.gemm ? (k.reset ? "gemm reset" : "gemm") : "alu ",
                                k.gemm ? "" : alu_op_name(k.alu_opcode), k.uops.size());
  int depth = 1;
  for (const UopLoop& l : k.loops) {
    out += fmt::format("{}VTAUopLoopBegin({}, {}, {}, {})\n", std::string(size_t(depth) * 2, ' '),
                       l.extent, l.dst_factor, l.src_factor, l.wgt_factor);
    ++depth;
  }
  std::vector<LoopNest> pushes;
  const std::string tail = fmt::format(", {}, {}, {})", k.gemm ? 0 : k.alu_opcode,
                                       k.use_imm ? 1 : 0, k.use_imm ? k.imm : 0);
  for (const Uop& u : k.uops) {
    pushes.push_back(LoopNest::call(
        {fmt::format("VTAUopPush({}, {}, ", k.gemm ? 0 : 1, k.reset ? 1 : 0), ", ", ", ", tail},
        {u.dst_idx, u.src_idx, u.wgt_idx}));
  }
  out += print_loops(fold_loops(std::move(pushes)), depth);
  while (--depth > 0) {
    out += fmt::format("{}VTAUopLoopEnd()\n", std::string(size_t(depth) * 2, ' '));
  }
  return out + "}\n";
}

}  // namespace

std::string lowered_summary(const RecordingSink& sink) {
  uint64_t loads = 0, gemm = 0, alu = 0, stores = 0, tokens = 0, uops = 0;
  for (const RecordedCall& c : sink.calls()) {
    loads += c.kind == CallKind::kLoad ? 1 : 0;
    stores += c.kind == CallKind::kStore ? 1 : 0;
    tokens += c.kind == CallKind::kDepPush ? 1 : 0;
    if (c.kind == CallKind::kKernel) {
      (sink.kernels()[c.kernel].gemm ? gemm : alu) += 1;
    }
  }
  for (const MicroKernel& k : sink.kernels()) {
    uops += k.uops.size();
  }
  return fmt::format("load {}, gemm {}, alu {}, store {}, tokens {}, kernels {}, uops {}", loads,
                     gemm, alu, stores, tokens, sink.kernels().size(), uops);
}

std::unique_ptr<RecordingSink> lower_conv2d(const HwConfig& cfg, const Conv2dParams& p,
                                            const Epilogue& e, const ConvSchedule& s) {
  const TilePlan plan = TilePlan::make(p, e, s, cfg);
  const BlockedConv& g = plan.g;
  auto sink = std::make_unique<RecordingSink>();
  ConvCodegen codegen(plan, cfg);
  auto buffer = [&](const char* name, size_t bytes) {
    BufferHandle h = sink->alloc(bytes);
    sink->name_buffer(h, name);
    return h;
  };
  ConvBuffers b;
  b.inp = buffer("data", size_t(g.nb) * g.icb * g.p.h * g.p.w * size_t(cfg.inp_elem_bytes));
  b.wgt = buffer("kernel", size_t(g.ocb) * g.icb * g.p.kh * g.p.kw * size_t(cfg.wgt_elem_bytes));
  const size_t out_elems = size_t(g.nb) * g.ocb * g.oh * g.ow;
  b.out = buffer("res", out_elems * size_t(cfg.out_elem_bytes));
  if (plan.e.bias) {
    b.bias = buffer("bias", size_t(g.ocb) * size_t(cfg.acc_elem_bytes));
  }
  if (plan.e.residual) {
    b.residual = buffer("residual", out_elems * size_t(cfg.out_elem_bytes));
  }
  if (plan.e.per_channel()) {
    b.shifts = buffer("shifts", size_t(g.ocb) * size_t(cfg.acc_elem_bytes));
  }
  if (codegen.zero_bytes()) {
    b.zeros = buffer("zeros", codegen.zero_bytes());
  }
  codegen.emit(*sink, b);
  return sink;
}

std::string format_lowered(const RecordingSink& sink) {
  std::string out = kLegend;
  out += "// buffers:";
  for (const auto& [name, bytes] : sink.buffers()) {
    out += fmt::format(" {} ({} B)", name, bytes);
  }
  out += "\n\n";
  for (size_t i = 0; i < sink.kernels().size(); ++i) {
    out += format_kernel(sink.kernels()[i], i);
  }
  std::vector<LoopNest> calls;
  for (const RecordedCall& c : sink.calls()) {
    calls.push_back(program_call(sink, c));
  }
  return out + "\n" + print_loops(fold_loops(std::move(calls)));
}

std::string lowered_header(const std::string& name, const std::string& shape, const Epilogue& e,
                           const ConvSchedule& s, const HwConfig& cfg) {
  return fmt::format("// lowered program of {}: {}, epilogue {}, schedule {}, config {}\n", name,
                     shape, e.describe(), s.describe(), cfg.model_name);
}

}  // namespace vta::compiler
