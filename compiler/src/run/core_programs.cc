#include "run/core_programs.h"

#include <fmt/format.h>

#include "vta/compiler/codegen/conv_codegen.h"
#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/sim/error.h"

namespace vta::compiler {

bool output_loads_as_input(const HwConfig& cfg, const ConvSchedule& consumer) {
  return cfg.block_in == cfg.block_out && cfg.inp_width == cfg.out_width && !consumer.fold_rows;
}

bool output_loads_as_residual(const HwConfig& cfg) {
  return cfg.out_width == 8;
}

void emit_layer_barrier(ProgramSink& sink) {
  sink.dep_push(kStageStore, kStageCompute);
  sink.dep_pop(kStageStore, kStageCompute);
  sink.dep_push(kStageCompute, kStageLoad);
  sink.dep_pop(kStageCompute, kStageLoad);
}

std::shared_ptr<DeviceBuffer> alloc_conv_output(ProgramSink& sink, const Conv2dParams& p,
                                                const HwConfig& cfg) {
  return std::make_shared<DeviceBuffer>(sink, conv_output_bytes(BlockedConv::make(p, cfg), cfg));
}

namespace {

// A layer prepared for its core: the convolution it runs (a matmul's), its plan, code generator
// and device tensors (inputs it loads from earlier layers' outputs are not uploaded).
struct StagedLayer {
  const CoreLayerWork* work = nullptr;
  Conv2dParams p;
  TilePlan plan;
  std::unique_ptr<ConvCodegen> codegen;
  ConvDeviceTensors tensors;
  std::shared_ptr<DeviceBuffer> out;

  ConvBuffers buffers() const {
    ConvBuffers b = tensors.buffers();
    b.out = out->get();
    if (work->input_on_device) {
      b.inp = work->input_on_device->get();
    }
    if (work->residual_on_device) {
      b.residual = work->residual_on_device->get();
    }
    return b;
  }
};

void stage_layer(const Target& target, ProgramSink& sink, const CoreLayerWork& w, StagedLayer& st) {
  const HwConfig& cfg = target.config;
  if (w.matmul) {
    check_matmul_data(w.mm, w.e, w.mm_data);
  }
  st.work = &w;
  st.p = w.matmul ? matmul_as_conv(w.mm, cfg) : w.conv;
  const Epilogue e = epilogue_at_widths(w.e, cfg);
  const ConvData data = w.matmul ? matmul_conv_data(w.mm, st.p, w.mm_data) : w.conv_data;
  const std::string name = st.p.name.empty() ? "conv2d" : st.p.name;
  check_layer_widths(cfg, name);
  check_conv_data(st.p, e, data);
  check_conv_lanes(name, data, LayerWidths::of(cfg));
  const bool input_ok = !w.input_on_device || (!w.matmul && output_loads_as_input(cfg, w.s));
  if (!input_ok || (w.residual_on_device && (w.matmul || !output_loads_as_residual(cfg)))) {
    throw Error(fmt::format("{}: loads a tensor on the device in a layout it does not take", name));
  }
  st.plan = TilePlan::make(st.p, e, w.s, cfg);
  PackedConv packed = pack_conv(st.plan, cfg, w.s.fold_rows ? planned_data(st.p, w.s, data) : data);
  if (w.input_on_device) {
    packed.inp.clear();
  }
  if (w.residual_on_device) {
    packed.residual.clear();
  }
  st.codegen = std::make_unique<ConvCodegen>(st.plan, cfg);
  st.tensors = upload(sink, st.plan, cfg, packed, st.codegen->zero_bytes(), !w.output);
  if (!w.output) {
    st.out = std::make_shared<DeviceBuffer>(std::move(st.tensors.out));
    return;
  }
  const size_t bytes = conv_output_bytes(st.plan.g, cfg);
  if (w.output->bytes() != bytes) {  // the caller's buffer must hold the layer's stores
    throw Error(fmt::format("{}: output buffer of {} bytes, the layer stores {}", name,
                            w.output->bytes(), bytes));
  }
  st.out = w.output;
}

// The staged layer's result after the run: its description and its output read back.
CoreLayerResult finish_staged_layer(const Target& target, const StagedLayer& st) {
  const HwConfig& cfg = target.config;
  const CoreLayerWork& w = *st.work;
  CoreLayerResult res;
  LayerRun& r = res.run;
  r = describe_conv_run(target, st.p, st.plan);
  r.kernels = st.codegen->kernel_count();
  r.kernel_uops = st.codegen->kernel_uops();
  const BlockedConv& g = st.plan.g;
  const size_t out_lanes = size_t(g.nb) * g.ocb * g.oh * g.ow * cfg.batch * cfg.block_out;
  r.out = unpack_nchw(unpack_lanes(st.out->read<int8_t>(), cfg.out_width, out_lanes), st.p.n,
                      st.p.k, g.oh, g.ow, g.batch, g.block_out);
  if (w.matmul) {
    r.out = matmul_output(w.mm, st.p, r.out);
    r.kind = "matmul";
    r.shape = w.mm.describe();
    r.macs = w.mm.macs();
  }
  res.output = st.out;
  return res;
}

}  // namespace

std::vector<std::vector<CoreLayerResult>> run_core_programs(
    const Target& target, ProgramSink& sink,
    const std::vector<std::vector<const CoreLayerWork*>>& programs, Stats& system) {
  std::vector<std::vector<StagedLayer>> staged(programs.size());
  for (size_t k = 0; k < programs.size(); ++k) {
    staged[k].resize(programs[k].size());
    for (size_t j = 0; j < programs[k].size(); ++j) {
      stage_layer(target, sink, *programs[k][j], staged[k][j]);
    }
  }
  sink.clear_stats();
  {
    SystemRunScope run(*target.runtime);
    for (size_t k = 0; k < programs.size(); ++k) {
      if (staged[k].empty()) {
        continue;
      }
      run.record_on(int(k));
      for (size_t j = 0; j < staged[k].size(); ++j) {
        if (j > 0) {
          emit_layer_barrier(sink);
        }
        staged[k][j].codegen->emit(sink, staged[k][j].buffers());
      }
      sink.synchronize();  // kept for the run of all cores
    }
    if (run.run(target.max_cycles)) {
      throw Error(fmt::format("a run of {} cores did not finish within {} cycles", programs.size(),
                              target.max_cycles));
    }
  }
  system = system_run_stats(target.runtime->backend());
  std::vector<std::vector<CoreLayerResult>> results(programs.size());
  for (size_t k = 0; k < programs.size(); ++k) {
    for (const StagedLayer& st : staged[k]) {
      results[k].push_back(finish_staged_layer(target, st));
    }
  }
  return results;
}

void check_core_layer(const Target& target, const CoreLayerWork& w, LayerRun& run) {
  const LayerWidths widths = LayerWidths::of(target.config);
  if (w.matmul) {
    check_matmul_output(run, w.mm, w.e, w.mm_data, widths);
  } else {
    check_conv_output(run, w.conv, epilogue_at_widths(w.e, target.config), w.conv_data, widths);
  }
}

}  // namespace vta::compiler
