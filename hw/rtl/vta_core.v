// vta_core: the whole VTA accelerator (ISA 0.0.2): fetch, the three instruction queues, the
// load, compute and store units, the four dependency-token queues (l2g, g2l, s2g, g2s), the
// input, weight and output SRAMs shared between units (uop and acc live inside compute), the
// memory arbiter and the control/status interface.
//
// Control: a one-cycle `start` with `insn_addr`/`insn_count` resets queues, tokens and units
// (the SRAMs keep their contents, like hardware); the next cycle is cycle 0 of the run. `done`
// rises after the cycle in which FINISH ends (E_fin) and stays high until the next start;
// `cycles` then holds E_fin + 1, the run's cycle count of the timing contract. `error` stops
// the core on an out-of-range GEMM/ALU index (see compute.v).
`default_nettype none
`include "vta_params.vh"
module vta_core (
    input  wire                      clk,
    input  wire                      rst,
    // control
    input  wire                      start,
    input  wire [              31:0] insn_addr,
    input  wire [              31:0] insn_count,
    output reg                       running,
    output reg                       done,
    output reg  [              63:0] cycles,
    output wire                      error,
    output wire [               3:0] err_code,
    output wire [              31:0] err_value,
    output wire [              31:0] err_compute_insn,  // ordinal among compute instructions
    // deadlock watch: nothing in flight or starting, fetch unable to move
    output wire                      stuck,
    output wire [              31:0] token_counts,      // byte VTA_TOKEN_<queue>: its tokens
    output wire [               2:0] units_waiting,     // load, compute, store hold a head
    output wire [               2:0] units_running,     // load, compute, store inside an insn
    // event counters (cleared at start)
    output wire [              63:0] inp_load_nbytes,
    output wire [              63:0] wgt_load_nbytes,
    output wire [              63:0] acc_load_nbytes,
    output wire [              63:0] uop_load_nbytes,
    output wire [              63:0] out_store_nbytes,
    output wire [              63:0] gemm_counter,
    output wire [              63:0] alu_counter,
    output wire [              63:0] alu_active_cycles,
    output wire [              63:0] uops_issued,       // GEMM/ALU micro-op iterations issued
    output wire [              95:0] unit_insns,        // load, compute, store: instructions
    output wire [             191:0] unit_busy_cycles,  // load, compute, store
    output wire [             191:0] unit_idle_cycles,  // load, compute, store
    // stall cycles by queue: load g2l, l2g_full; compute l2g, s2g, g2l_full, g2s_full; store
    // g2s, s2g_full (64 bits each, in this order from bit 0)
    output wire [             511:0] stall_cycles,
    output wire [             191:0] unit_mem_stall_cycles,  // load, compute, store
    output wire [             127:0] fetch_cycles,      // active, stall_queue_full
    // memory read channel: the granted burst of this cycle, and data beats with their tag
    output wire                      mem_rd_req_valid,
    input  wire                      mem_rd_req_ready,
    output wire [              31:0] mem_rd_req_addr,
    output wire [               8:0] mem_rd_req_beats,
    output wire [`VTA_READ_TAG_BITS-1:0] mem_rd_req_tag,
    input  wire                      mem_rd_data_valid,
    input  wire [`VTA_READ_TAG_BITS-1:0] mem_rd_data_tag,
    input  wire [`VTA_BUS_WIDTH-1:0] mem_rd_data,
    // memory write channel (store)
    output wire                      mem_wr_req_valid,
    input  wire                      mem_wr_req_ready,
    output wire [              31:0] mem_wr_req_addr,
    output wire [               8:0] mem_wr_req_beats,
    output wire                      mem_wr_data_valid,
    input  wire                      mem_wr_data_ready,
    output wire [`VTA_BUS_WIDTH-1:0] mem_wr_data,
    output wire [`VTA_BUS_BYTES-1:0] mem_wr_strb,  // bytes of the beat to write
    input  wire                      mem_wr_resp_valid
);
  localparam integer QD = `VTA_INSN_QUEUE_DEPTH;
  localparam integer QL = `VTA_LOG_INSN_QUEUE_DEPTH;
  localparam integer NC = `VTA_NUM_READ_CLIENTS;
  // read clients (timing contract numbering): fields of the arbiter's client vectors
`define VTA_RQ_ADDR(C) rq_addr[32*(C)+:32]
`define VTA_RQ_BEATS(C) rq_beats[9*(C)+:9]
  wire urst = rst || start;  // per-run reset of queues, tokens and units

  // ---- fetch and instruction queues ----
  wire f_idle, f_load_push, f_compute_push, f_store_push;
  wire lq_full, cq_full, sq_full, lq_empty, cq_empty, sq_empty;
  wire [127:0] f_insn, lq_head, cq_head, sq_head;
  wire lq_pop, cq_pop, sq_pop;
  wire [QL:0] lq_count, cq_count, sq_count;
  wire [NC-1:0] rq_valid, rq_grant, rd_valid;
  wire [32*NC-1:0] rq_addr;
  wire [9*NC-1:0] rq_beats;
  wire [63:0] f_active, f_stall;

  fetch u_fetch (
      .clk(clk), .rst(rst), .start(start), .insn_addr(insn_addr), .insn_count(insn_count),
      .idle(f_idle),
      .req_valid(rq_valid[`VTA_CLIENT_FETCH]), .req_grant(rq_grant[`VTA_CLIENT_FETCH]),
      .req_addr(`VTA_RQ_ADDR(`VTA_CLIENT_FETCH)), .req_beats(`VTA_RQ_BEATS(`VTA_CLIENT_FETCH)),
      .data_valid(rd_valid[`VTA_CLIENT_FETCH]), .data(mem_rd_data),
      .load_push(f_load_push), .load_full(lq_full), .compute_push(f_compute_push),
      .compute_full(cq_full), .store_push(f_store_push), .store_full(sq_full), .insn(f_insn),
      .active_cycles(f_active), .stall_cycles(f_stall));
  assign fetch_cycles = {f_stall, f_active};

`define VTA_INSN_QUEUE(NAME, PUSH, POP, HEAD, COUNT, FULL, EMPTY) \
  vta_fifo #(.WIDTH(128), .DEPTH(QD), .LOG_DEPTH(QL), .COUNT_BITS(QL + 1)) NAME ( \
      .clk(clk), .rst(urst), .push(PUSH), .push_data(f_insn), .pop(POP), .head(HEAD), \
      .count(COUNT), .full(FULL), .empty(EMPTY));
  `VTA_INSN_QUEUE(u_load_queue, f_load_push, lq_pop, lq_head, lq_count, lq_full, lq_empty)
  `VTA_INSN_QUEUE(u_compute_queue, f_compute_push, cq_pop, cq_head, cq_count, cq_full, cq_empty)
  `VTA_INSN_QUEUE(u_store_queue, f_store_push, sq_pop, sq_head, sq_count, sq_full, sq_empty)
`undef VTA_INSN_QUEUE

  // ---- dependency-token queues ----
  wire l2g_push, l2g_pop, l2g_avail, l2g_full;
  wire g2l_push, g2l_pop, g2l_avail, g2l_full;
  wire s2g_push, s2g_pop, s2g_avail, s2g_full;
  wire g2s_push, g2s_pop, g2s_avail, g2s_full;
  wire [`VTA_DEP_COUNT_BITS-1:0] l2g_count, g2l_count, s2g_count, g2s_count;
  vta_dep_queue u_l2g (.clk(clk), .rst(urst), .push(l2g_push), .pop(l2g_pop), .count(l2g_count),
                       .avail(l2g_avail), .full(l2g_full));
  vta_dep_queue u_g2l (.clk(clk), .rst(urst), .push(g2l_push), .pop(g2l_pop), .count(g2l_count),
                       .avail(g2l_avail), .full(g2l_full));
  vta_dep_queue u_s2g (.clk(clk), .rst(urst), .push(s2g_push), .pop(s2g_pop), .count(s2g_count),
                       .avail(s2g_avail), .full(s2g_full));
  vta_dep_queue u_g2s (.clk(clk), .rst(urst), .push(g2s_push), .pop(g2s_pop), .count(g2s_count),
                       .avail(g2s_avail), .full(g2s_full));
  localparam integer kPad = 32 - `VTA_DEP_COUNT_BITS;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] tc_l2g = {{kPad{1'b0}}, l2g_count}, tc_g2l = {{kPad{1'b0}}, g2l_count};
  wire [31:0] tc_s2g = {{kPad{1'b0}}, s2g_count}, tc_g2s = {{kPad{1'b0}}, g2s_count};
  /* verilator lint_on UNUSEDSIGNAL */
  assign token_counts[8*`VTA_TOKEN_L2G+:8] = tc_l2g[7:0];
  assign token_counts[8*`VTA_TOKEN_G2L+:8] = tc_g2l[7:0];
  assign token_counts[8*`VTA_TOKEN_S2G+:8] = tc_s2g[7:0];
  assign token_counts[8*`VTA_TOKEN_G2S+:8] = tc_g2s[7:0];

  // ---- shared SRAMs ----
  // Elements narrower than a bus beat: R = bus / element bytes of them per beat, so the buffer
  // is R banks (vta_sram_lanes) that take (inp, wgt) or give (out) a whole beat per cycle.
  localparam integer kLogB = `VTA_LOG_BUS_BYTES;
  localparam integer kLogInpR = `VTA_INP_ELEM_BYTES < `VTA_BUS_BYTES ?
      kLogB - $clog2(`VTA_INP_ELEM_BYTES) : 0;
  localparam integer kLogWgtR = `VTA_WGT_ELEM_BYTES < `VTA_BUS_BYTES ?
      kLogB - $clog2(`VTA_WGT_ELEM_BYTES) : 0;
  localparam integer kLogOutR = `VTA_OUT_ELEM_BYTES < `VTA_BUS_BYTES ?
      kLogB - $clog2(`VTA_OUT_ELEM_BYTES) : 0;
  localparam integer kInpW = `VTA_INP_ELEM_BYTES * 8;
  localparam integer kWgtW = `VTA_WGT_ELEM_BYTES * 8;
  localparam integer kOutW = `VTA_OUT_ELEM_BYTES * 8;
  wire inp_we, wgt_we, out_we, inp_re, wgt_re, out_re;
  wire [7:0] inp_wc, wgt_wc;
  wire [`VTA_LOG_INP_DEPTH-1:0] inp_wi, inp_ri;
  wire [`VTA_LOG_WGT_DEPTH-1:0] wgt_wi, wgt_ri;
  wire [`VTA_LOG_ACC_DEPTH-1:0] out_wi, out_ri;
  wire [(kInpW<<kLogInpR)-1:0] inp_wd, inp_rd_lanes;
  wire [(kWgtW<<kLogWgtR)-1:0] wgt_wd, wgt_rd_lanes;
  wire [(kOutW<<kLogOutR)-1:0] out_rd;
  wire [kInpW-1:0] inp_rd = inp_rd_lanes[kInpW-1:0];  // GEMM reads one element: lane 0
  wire [kWgtW-1:0] wgt_rd = wgt_rd_lanes[kWgtW-1:0];
  wire [kOutW-1:0] out_wd;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [(kInpW<<kLogInpR)-1:0] inp_rd_unused = inp_rd_lanes;
  wire [(kWgtW<<kLogWgtR)-1:0] wgt_rd_unused = wgt_rd_lanes;
  /* verilator lint_on UNUSEDSIGNAL */
  vta_sram_lanes #(.WIDTH(kInpW), .LOG_DEPTH(`VTA_LOG_INP_DEPTH), .LOG_R(kLogInpR)) u_inp_sram (
      .clk(clk), .wr_en(inp_we), .wr_idx(inp_wi), .wr_count(inp_wc), .wr_data(inp_wd),
      .rd_en(inp_re), .rd_idx(inp_ri), .rd_data(inp_rd_lanes));
  vta_sram_lanes #(.WIDTH(kWgtW), .LOG_DEPTH(`VTA_LOG_WGT_DEPTH), .LOG_R(kLogWgtR)) u_wgt_sram (
      .clk(clk), .wr_en(wgt_we), .wr_idx(wgt_wi), .wr_count(wgt_wc), .wr_data(wgt_wd),
      .rd_en(wgt_re), .rd_idx(wgt_ri), .rd_data(wgt_rd_lanes));
  // compute writes one element per cycle (lane 0), store reads a beat
  vta_sram_lanes #(.WIDTH(kOutW), .LOG_DEPTH(`VTA_LOG_ACC_DEPTH), .LOG_R(kLogOutR)) u_out_sram (
      .clk(clk), .wr_en(out_we), .wr_idx(out_wi), .wr_count(8'd1),
      .wr_data({{((kOutW << kLogOutR) - kOutW) {1'b0}}, out_wd}), .rd_en(out_re),
      .rd_idx(out_ri), .rd_data(out_rd));

  // ---- units ----
  wire l_idle, c_idle, s_idle, c_finish;
  wire [63:0] l_busy, c_busy, s_busy, l_idlec, c_idlec, s_idlec;
  wire [63:0] l_stall_tok, l_stall_full, s_stall_tok, s_stall_full, l_ms, c_ms, s_ms;
  wire [255:0] c_stall;
  wire [31:0] l_insns, c_insns, s_insns, c_started;

  load u_load (
      .clk(clk), .rst(urst),
      .q_valid(!lq_empty), .q_insn(lq_head), .q_pop(lq_pop),
      .g2l_avail(g2l_avail), .g2l_pop(g2l_pop), .l2g_full(l2g_full), .l2g_push(l2g_push),
      .req_valid({rq_valid[`VTA_CLIENT_WGT], rq_valid[`VTA_CLIENT_INP]}),
      .req_grant({rq_grant[`VTA_CLIENT_WGT], rq_grant[`VTA_CLIENT_INP]}),
      .req_addr({`VTA_RQ_ADDR(`VTA_CLIENT_WGT), `VTA_RQ_ADDR(`VTA_CLIENT_INP)}),
      .req_beats({`VTA_RQ_BEATS(`VTA_CLIENT_WGT), `VTA_RQ_BEATS(`VTA_CLIENT_INP)}),
      .data_valid({rd_valid[`VTA_CLIENT_WGT], rd_valid[`VTA_CLIENT_INP]}), .data(mem_rd_data),
      .inp_wr_en(inp_we), .inp_wr_idx(inp_wi), .inp_wr_count(inp_wc), .inp_wr_data(inp_wd),
      .wgt_wr_en(wgt_we), .wgt_wr_idx(wgt_wi), .wgt_wr_count(wgt_wc), .wgt_wr_data(wgt_wd),
      .inp_bytes(inp_load_nbytes), .wgt_bytes(wgt_load_nbytes), .insn_done(l_insns),
      .busy_cycles(l_busy), .idle_cycles(l_idlec), .stall_g2l(l_stall_tok),
      .stall_l2g_full(l_stall_full), .mem_stall_cycles(l_ms), .idle(l_idle));

  compute u_compute (
      .clk(clk), .rst(urst),
      .q_valid(!cq_empty), .q_insn(cq_head), .q_pop(cq_pop),
      .l2g_avail(l2g_avail), .l2g_pop(l2g_pop), .s2g_avail(s2g_avail), .s2g_pop(s2g_pop),
      .g2l_full(g2l_full), .g2l_push(g2l_push), .g2s_full(g2s_full), .g2s_push(g2s_push),
      .req_valid({rq_valid[`VTA_CLIENT_ACC], rq_valid[`VTA_CLIENT_UOP]}),
      .req_grant({rq_grant[`VTA_CLIENT_ACC], rq_grant[`VTA_CLIENT_UOP]}),
      .req_addr({`VTA_RQ_ADDR(`VTA_CLIENT_ACC), `VTA_RQ_ADDR(`VTA_CLIENT_UOP)}),
      .req_beats({`VTA_RQ_BEATS(`VTA_CLIENT_ACC), `VTA_RQ_BEATS(`VTA_CLIENT_UOP)}),
      .data_valid({rd_valid[`VTA_CLIENT_ACC], rd_valid[`VTA_CLIENT_UOP]}), .data(mem_rd_data),
      .inp_rd_en(inp_re), .inp_rd_idx(inp_ri), .inp_rd_data(inp_rd),
      .wgt_rd_en(wgt_re), .wgt_rd_idx(wgt_ri), .wgt_rd_data(wgt_rd),
      .out_wr_en(out_we), .out_wr_idx(out_wi), .out_wr_data(out_wd),
      .finish(c_finish), .error(error), .err_code(err_code), .err_value(err_value),
      .insn_done(c_insns), .insn_started(c_started),
      .uop_bytes(uop_load_nbytes), .acc_bytes(acc_load_nbytes), .gemm_count(gemm_counter),
      .alu_count(alu_counter), .busy_cycles(c_busy), .idle_cycles(c_idlec),
      .stall_cycles(c_stall), .mem_stall_cycles(c_ms), .alu_active(alu_active_cycles),
      .uops_issued(uops_issued), .idle(c_idle));
  assign err_compute_insn = c_started - 1'b1;

  store u_store (
      .clk(clk), .rst(urst),
      .q_valid(!sq_empty), .q_insn(sq_head), .q_pop(sq_pop),
      .g2s_avail(g2s_avail), .g2s_pop(g2s_pop), .s2g_full(s2g_full), .s2g_push(s2g_push),
      .out_rd_en(out_re), .out_rd_idx(out_ri), .out_rd_data(out_rd),
      .wr_req_valid(mem_wr_req_valid), .wr_req_ready(mem_wr_req_ready),
      .wr_req_addr(mem_wr_req_addr), .wr_req_beats(mem_wr_req_beats),
      .wr_data_valid(mem_wr_data_valid), .wr_data_ready(mem_wr_data_ready),
      .wr_data(mem_wr_data), .wr_strb(mem_wr_strb), .wr_resp_valid(mem_wr_resp_valid),
      .out_bytes(out_store_nbytes), .insn_done(s_insns), .busy_cycles(s_busy),
      .idle_cycles(s_idlec), .stall_g2s(s_stall_tok), .stall_s2g_full(s_stall_full),
      .mem_stall_cycles(s_ms), .idle(s_idle));

  mem_arbiter u_arbiter (
      .req_valid(rq_valid), .req_grant(rq_grant), .req_addr(rq_addr), .req_beats(rq_beats),
      .data_valid(rd_valid),
      .mem_req_valid(mem_rd_req_valid), .mem_req_ready(mem_rd_req_ready),
      .mem_req_addr(mem_rd_req_addr), .mem_req_beats(mem_rd_req_beats),
      .mem_req_tag(mem_rd_req_tag), .mem_data_valid(mem_rd_data_valid),
      .mem_data_tag(mem_rd_data_tag));

  assign unit_insns = {s_insns, c_insns, l_insns};
  assign unit_busy_cycles = {s_busy, c_busy, l_busy};
  assign unit_idle_cycles = {s_idlec, c_idlec, l_idlec};
  assign stall_cycles = {s_stall_full, s_stall_tok, c_stall, l_stall_full, l_stall_tok};
  assign unit_mem_stall_cycles = {s_ms, c_ms, l_ms};
  assign units_waiting = {!sq_empty, !cq_empty, !lq_empty};
  assign units_running = {!s_idle, !c_idle, !l_idle};

  // Stuck: no unit has an instruction in flight or starting, no token push is on its way
  // (pushes are seen by the start rule the next cycle), and fetch cannot move.
  wire any_push = l2g_push || g2l_push || s2g_push || g2s_push;
  assign stuck = running && l_idle && c_idle && s_idle && f_idle && !any_push;

  always @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      done <= 1'b0;
      cycles <= 0;
    end else if (start) begin
      running <= 1'b1;
      done <= 1'b0;
      cycles <= 0;
    end else if (running) begin
      cycles <= cycles + 1'b1;
      if (c_finish) begin
        running <= 1'b0;
        done <= 1'b1;
      end
      if (error) running <= 1'b0;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = (|lq_count) ^ (|cq_count) ^ (|sq_count);
  /* verilator lint_on UNUSEDSIGNAL */
`undef VTA_RQ_ADDR
`undef VTA_RQ_BEATS
endmodule
`default_nettype wire
