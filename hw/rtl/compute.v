// compute: the compute unit. Executes, in order and one at a time, the instructions of its
// queue: LOAD UOP / ACC / ACC_8BIT (its own DMA engines, memory clients uop and acc),
// GEMM and ALU (micro-op loops over the uop, inp, wgt and acc SRAMs) and FINISH. It starts
// the head instruction in the first cycle S in which every pop it asks for has a visible
// token (pop_prev: l2g, pop_next: s2g) and every push has room (push_prev: g2l, push_next:
// g2s); pops in S, pushes in the end cycle E (sim/README.md section 4), with D the contract's
// compute pipeline depth (VTA_COMPUTE_PIPE_DEPTH, 4):
//   GEMM, ALU-imm: iterations issued S+1..S+N, E = S + N + D; ALU-vector: issued every other
//   cycle from S+1, E = S + 2N - 1 + D; N = 0, FINISH, LOAD NOP: E = S; LOAD: its engine's end.
//
// Micro-op pipeline: S0 issue: read uop[upc]; S1: indices = uop fields + loop offsets, read
// acc (and inp, wgt); S2: GEMM / ALU-imm compute and write acc + out; ALU-vector: read dst;
// S3: ALU-vector compute and write. A read in the same cycle as a write to the same index is
// bypassed, so results equal fsim's sequential semantics for any program. The pipeline may be
// shallower than D (elaboration fails if it is deeper): only E (and so the token pushes) is
// observable, and every result is written by E.
// Out-of-range SRAM indices stop the unit with `error` and a code naming the field.
`default_nettype none
`include "vta_params.vh"
module compute (
    input  wire                                          clk,
    input  wire                                          rst,
    // instruction queue
    input  wire                                          q_valid,
    input  wire [                                 127:0] q_insn,
    output wire                                          q_pop,
    // dependency tokens
    input  wire                                          l2g_avail,
    output wire                                          l2g_pop,
    input  wire                                          s2g_avail,
    output wire                                          s2g_pop,
    input  wire                                          g2l_full,
    output wire                                          g2l_push,
    input  wire                                          g2s_full,
    output wire                                          g2s_push,
    // memory read clients uop and acc (acc, acc_8bit): index 0 uop, 1 acc
    output wire [                                   1:0] req_valid,
    input  wire [                                   1:0] req_grant,
    output wire [                                  63:0] req_addr,
    output wire [                                  17:0] req_beats,
    input  wire [                                   1:0] data_valid,
    input  wire [                    `VTA_BUS_WIDTH-1:0] data,
    // input and weight SRAM read ports
    output wire                                          inp_rd_en,
    output wire [                `VTA_LOG_INP_DEPTH-1:0] inp_rd_idx,
    input  wire [           `VTA_INP_ELEM_BYTES*8-1:0]   inp_rd_data,
    output wire                                          wgt_rd_en,
    output wire [                `VTA_LOG_WGT_DEPTH-1:0] wgt_rd_idx,
    input  wire [           `VTA_WGT_ELEM_BYTES*8-1:0]   wgt_rd_data,
    // output SRAM write port
    output wire                                          out_wr_en,
    output wire [                `VTA_LOG_ACC_DEPTH-1:0] out_wr_idx,
    output wire [           `VTA_OUT_ELEM_BYTES*8-1:0]   out_wr_data,
    // status
    output wire                                          finish,      // FINISH ends this cycle
    output reg                                           error,       // sticky: illegal index
    output reg  [                                   3:0] err_code,    // 1 dst, 2 src, 3 wgt
    output reg  [                                  31:0] err_value,   // the offending index
    output reg  [                                  31:0] insn_done,   // instructions finished
    output reg  [                                  31:0] insn_started,
    // event counters
    output reg  [                                  63:0] uop_bytes,
    output reg  [                                  63:0] acc_bytes,
    output reg  [                                  63:0] gemm_count,
    output reg  [                                  63:0] alu_count,
    output reg  [                                  63:0] busy_cycles,   // sum of E - S + 1
    output reg  [                                  63:0] idle_cycles,   // no visible instruction
    output reg  [                                 255:0] stall_cycles,  // l2g, s2g, g2l_full, g2s_full
    output reg  [                                  63:0] mem_stall_cycles,  // DMA cycles waiting
    output reg  [                                  63:0] alu_active,    // ALU issue cycles
    output reg  [                                  63:0] uops_issued,   // GEMM/ALU iterations issued
    output wire                                          idle
);
  localparam integer kLanes = `VTA_BATCH * `VTA_BLOCK_OUT;
  localparam integer AW = `VTA_ACC_WIDTH;
  localparam integer OW = `VTA_OUT_WIDTH;  // lanes packed LSB first (sub-byte lanes share bytes)
  localparam integer ACC_W = `VTA_ACC_ELEM_BYTES * 8;
  localparam integer LOG_UOP = `VTA_LOG_UOP_DEPTH;
  localparam integer LOG_ACC = `VTA_LOG_ACC_DEPTH;
  localparam [31:0] kAccDepth = 32'd1 << `VTA_LOG_ACC_DEPTH;
  localparam [31:0] kInpDepth = 32'd1 << `VTA_LOG_INP_DEPTH;
  localparam [31:0] kWgtDepth = 32'd1 << `VTA_LOG_WGT_DEPTH;
  localparam integer kLogAccE = $clog2(`VTA_ACC_ELEM_BYTES);
  localparam integer kLogAcc8E = $clog2(`VTA_ACC8_ELEM_BYTES);
  localparam integer kUopR = `VTA_BUS_BYTES >= 4 ? `VTA_BUS_BYTES / 4 : 1;  // uops per beat
  localparam integer kUopDW = kUopR * 32;
  // The contract's pipeline depth D (E = last uop issue + D) and the stages after the issue
  // stage S0 in which this pipeline writes results: the last write must come no later than E.
  localparam [63:0] kPipeDepth = `VTA_COMPUTE_PIPE_DEPTH;
  localparam integer kWriteStage = 2;  // GEMM, ALU-imm: S2
  localparam integer kVecWriteStage = 3;  // ALU-vector: S3
  generate
    if (kWriteStage > `VTA_COMPUTE_PIPE_DEPTH || kVecWriteStage > `VTA_COMPUTE_PIPE_DEPTH)
    begin : g_depth_check
      $error("compute: VTA_COMPUTE_PIPE_DEPTH %0d is shorter than the pipeline (writes in S%0d)",
             `VTA_COMPUTE_PIPE_DEPTH, kVecWriteStage);
    end
  endgenerate

  // ---- decode of the queue head ----
  wire [2:0] h_opcode = q_insn[2:0];
  wire h_pop_prev = q_insn[3];
  wire h_pop_next = q_insn[4];
  wire h_push_prev = q_insn[5];
  wire h_push_next = q_insn[6];
  wire [2:0] h_mem_type = q_insn[`VTA_MEM_MEMORY_TYPE_LO+:3];
  wire [15:0] h_x_size = q_insn[`VTA_MEM_X_SIZE_LO+:16];
  wire [15:0] h_y_size = q_insn[`VTA_MEM_Y_SIZE_LO+:16];
  wire [63:0] h_nelem = {48'b0, h_x_size} * {48'b0, h_y_size};
  wire h_is_alu = h_opcode == 3'd4;
  wire h_is_gemm = h_opcode == 3'd2;
  wire h_is_load = h_opcode == 3'd0;
  wire h_is_finish = h_opcode == 3'd3;
  wire h_reset = q_insn[`VTA_GEMM_RESET_REG_LO];
  wire [LOG_UOP-1:0] h_uop_bgn = q_insn[`VTA_GEMM_UOP_BGN_LO+:`VTA_GEMM_UOP_BGN_W];
  wire [LOG_UOP:0] h_uop_end = q_insn[`VTA_GEMM_UOP_END_LO+:`VTA_GEMM_UOP_END_W];
  wire [13:0] h_iter_out = q_insn[`VTA_GEMM_ITER_OUT_LO+:14];
  wire [13:0] h_iter_in = q_insn[`VTA_GEMM_ITER_IN_LO+:14];
  wire [LOG_UOP:0] h_nuop = h_uop_end - {1'b0, h_uop_bgn};
  wire [63:0] h_iters = {50'b0, h_iter_out} * {50'b0, h_iter_in} *
      {{(63 - LOG_UOP) {1'b0}}, h_nuop};
  wire h_empty_loop = h_iter_out == 0 || h_iter_in == 0 || h_uop_end <= {1'b0, h_uop_bgn};

  // ---- issue ----
  reg running;  // an instruction started before this cycle has not ended
  reg [2:0] mode;  // what is in flight
  localparam [2:0] M_NONE = 3'd0, M_LOAD = 3'd1, M_LOOP = 3'd2;
  reg q_push_prev, q_push_next;
  wire ready = (!h_pop_prev || l2g_avail) && (!h_pop_next || s2g_avail) &&
      (!h_push_prev || !g2l_full) && (!h_push_next || !g2s_full);
  wire issue = !running && !error && q_valid && ready;
  assign q_pop = issue;
  assign l2g_pop = issue && h_pop_prev;
  assign s2g_pop = issue && h_pop_next;
  assign idle = !running && !issue;

  wire h_load_nop = h_x_size == 16'd0;
  wire start_uop = issue && h_is_load && !h_load_nop && h_mem_type == 3'd0;
  wire start_acc = issue && h_is_load && !h_load_nop && h_mem_type == 3'd3;
  wire start_acc8 = issue && h_is_load && !h_load_nop && h_mem_type == 3'd5;
  wire start_loop = issue && (h_is_gemm || h_is_alu) && !h_empty_loop;
  // instructions that end in their start cycle (E = S)
  wire instant = issue && !start_uop && !start_acc && !start_acc8 && !start_loop;

  // ---- DMA engines ----
  wire uop_busy, uop_fin, acc_busy, acc_fin, a8_busy, a8_fin, uop_ms, acc_ms, a8_ms;
  wire acc_rq_v, a8_rq_v;
  wire [31:0] acc_rq_a, a8_rq_a;
  wire [8:0] acc_rq_b, a8_rq_b;
  wire uop_we, acc_dma_we, a8_we;
  wire [LOG_UOP-1:0] uop_wi;
  wire [7:0] uop_wcnt;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [7:0] acc_wcnt, a8_wcnt;  // always 1 (elements >= a beat)
  /* verilator lint_on UNUSEDSIGNAL */
  wire [LOG_ACC-1:0] acc_dma_wi, a8_wi;
  wire [kUopDW-1:0] uop_wd;
  wire [ACC_W-1:0] acc_dma_wd;
  wire [`VTA_ACC8_ELEM_BYTES*8-1:0] a8_wd;

  // acc and acc_8bit loads share the acc client (one instruction at a time)
  assign req_valid[1] = acc_rq_v || a8_rq_v;
  assign req_addr[63:32] = acc_rq_v ? acc_rq_a : a8_rq_a;
  assign req_beats[17:9] = acc_rq_v ? acc_rq_b : a8_rq_b;

`define VTA_COMPUTE_TL(NAME, EB, LEB, LD, DWIDTH, START, BUSY, FIN, MS, RQV, RQG, RQA, RQB, DV, WE, WI, WC, WD) \
  tensor_load #(.ELEM_BYTES(EB), .LOG_ELEM_BYTES(LEB), .LOG_DEPTH(LD), .DW(DWIDTH)) NAME ( \
      .clk(clk), .rst(rst), .start(START), \
      .sram_base(q_insn[`VTA_MEM_SRAM_BASE_LO+:16]), .dram_base(q_insn[`VTA_MEM_DRAM_BASE_LO+:32]), \
      .y_size(h_y_size), .x_size(h_x_size), .x_stride(q_insn[`VTA_MEM_X_STRIDE_LO+:16]), \
      .y_pad_0(q_insn[`VTA_MEM_Y_PAD_0_LO+:4]), .y_pad_1(q_insn[`VTA_MEM_Y_PAD_1_LO+:4]), \
      .x_pad_0(q_insn[`VTA_MEM_X_PAD_0_LO+:4]), .x_pad_1(q_insn[`VTA_MEM_X_PAD_1_LO+:4]), \
      .busy(BUSY), .finish(FIN), .mem_stall(MS), .req_valid(RQV), .req_grant(RQG), .req_addr(RQA), \
      .req_beats(RQB), .data_valid(DV), .data(data), \
      .wr_en(WE), .wr_idx(WI), .wr_count(WC), .wr_data(WD));

  `VTA_COMPUTE_TL(u_uop_load, 4, 2, LOG_UOP, kUopDW, start_uop, uop_busy, uop_fin, uop_ms, req_valid[0],
                  req_grant[0], req_addr[31:0], req_beats[8:0], data_valid[0], uop_we, uop_wi,
                  uop_wcnt, uop_wd)
  `VTA_COMPUTE_TL(u_acc_load, `VTA_ACC_ELEM_BYTES, kLogAccE, LOG_ACC, ACC_W, start_acc, acc_busy,
                  acc_fin, acc_ms, acc_rq_v, req_grant[1], acc_rq_a, acc_rq_b, data_valid[1] && acc_busy,
                  acc_dma_we, acc_dma_wi, acc_wcnt, acc_dma_wd)
  `VTA_COMPUTE_TL(u_acc8_load, `VTA_ACC8_ELEM_BYTES, kLogAcc8E, LOG_ACC,
                  `VTA_ACC8_ELEM_BYTES * 8, start_acc8, a8_busy, a8_fin, a8_ms, a8_rq_v, req_grant[1],
                  a8_rq_a, a8_rq_b, data_valid[1] && a8_busy, a8_we, a8_wi, a8_wcnt, a8_wd)
`undef VTA_COMPUTE_TL

  // ACC_8BIT: every int8 lane sign-extended to an accumulator lane
  reg [ACC_W-1:0] a8_ext;
  integer li;
  always @* begin
    for (li = 0; li < kLanes; li = li + 1)
      a8_ext[li*AW+:AW] = {{(AW - 8) {a8_wd[li*8+7]}}, a8_wd[li*8+:8]};
  end

  // ---- latched loop instruction ----
  reg l_gemm, l_reset, l_vec, l_use_imm;
  reg [2:0] l_alu_op;
  reg [15:0] l_imm;
  reg [LOG_UOP-1:0] l_uop_bgn;
  reg [LOG_UOP:0] l_uop_end;
  reg [13:0] l_iter_out, l_iter_in;
  reg [31:0] l_dfo, l_dfi, l_sfo, l_sfi, l_wfo, l_wfi;

  // ---- S0: loop index generator ----
  reg issuing, phase;
  reg [LOG_UOP:0] upc;
  reg [13:0] it_in, it_out;
  reg [31:0] off_out_d, off_out_s, off_out_w, off_in_d, off_in_s, off_in_w;
  wire s0_fire = issuing && !error && (!l_vec || !phase);
  wire upc_wrap = upc + 1'b1 == l_uop_end;
  wire in_wrap = it_in + 1'b1 == l_iter_in;
  wire last_iter = upc_wrap && in_wrap && it_out + 1'b1 == l_iter_out;

  // uop SRAM: R = max(1, bus/4) banks (bank = index mod R) so that the R micro-ops of one
  // bus beat are written in one cycle
  wire [31:0] uop_rd_data;
  generate
    if (kUopR == 1) begin : g_uop1
      vta_sram #(
          .WIDTH(32),
          .LOG_DEPTH(LOG_UOP)
      ) u_uop_sram (
          .clk(clk),
          .wr_en(uop_we),
          .wr_idx(uop_wi),
          .wr_data(uop_wd[31:0]),
          .rd_en(s0_fire),
          .rd_idx(upc[LOG_UOP-1:0]),
          .rd_data(uop_rd_data)
      );
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_cnt = |uop_wcnt;
      /* verilator lint_on UNUSEDSIGNAL */
    end else begin : g_uopn
      localparam integer LR = $clog2(kUopR);
      wire [31:0] bank_rd[0:kUopR-1];
      reg [LR-1:0] rd_bank_q;
      always @(posedge clk) if (s0_fire) rd_bank_q <= upc[LR-1:0];
      assign uop_rd_data = bank_rd[rd_bank_q];
      genvar k;
      for (k = 0; k < kUopR; k = k + 1) begin : g_bank
        // element j of the write goes to index uop_wi + j; bank k takes j = (k - uop_wi) mod R
        localparam [LR-1:0] KB = k;
        wire [LR-1:0] j = KB - uop_wi[LR-1:0];
        /* verilator lint_off UNUSEDSIGNAL */
        wire [LOG_UOP-1:0] widx = uop_wi + {{(LOG_UOP - LR) {1'b0}}, j};  // low bits = k
        /* verilator lint_on UNUSEDSIGNAL */
        vta_sram #(
            .WIDTH(32),
            .LOG_DEPTH(LOG_UOP - LR)
        ) u_bank (
            .clk(clk),
            .wr_en(uop_we && {{(8 - LR) {1'b0}}, j} < uop_wcnt),
            .wr_idx(widx[LOG_UOP-1:LR]),
            .wr_data(uop_wd[j*32+:32]),
            .rd_en(s0_fire && upc[LR-1:0] == KB),
            .rd_idx(upc[LOG_UOP-1:LR]),
            .rd_data(bank_rd[k])
        );
      end
    end
  endgenerate

  // ---- S1: indices, operand reads ----
  reg s1_valid;
  reg [31:0] s1_off_d, s1_off_s, s1_off_w;
  wire [31:0] u_dst = {{(32 - `VTA_UOP_DST_W) {1'b0}}, uop_rd_data[0+:`VTA_UOP_DST_W]};
  wire [31:0] u_src = {{(32 - `VTA_UOP_SRC_W) {1'b0}},
                       uop_rd_data[`VTA_UOP_DST_W+:`VTA_UOP_SRC_W]};
  wire [31:0] u_wgt = {{(32 - `VTA_UOP_WGT_W) {1'b0}},
                       uop_rd_data[`VTA_UOP_DST_W+`VTA_UOP_SRC_W+:`VTA_UOP_WGT_W]};
  wire [31:0] dst_idx = u_dst + s1_off_d;
  wire [31:0] src_idx = u_src + s1_off_s;
  wire [31:0] wgt_idx = u_wgt + s1_off_w;
  wire bad_dst = dst_idx >= kAccDepth;
  wire bad_src = l_gemm ? (!l_reset && src_idx >= kInpDepth) : (l_vec && src_idx >= kAccDepth);
  wire bad_wgt = l_gemm && !l_reset && wgt_idx >= kWgtDepth;
  wire s1_ok = s1_valid && !bad_dst && !bad_src && !bad_wgt;

  // ---- S2 / S3 registers ----
  reg s2_valid, s3_valid;
  reg [LOG_ACC-1:0] s2_dst, s3_dst;
  reg [ACC_W-1:0] s3_src_val;

  // ---- acc SRAM: one read port shared by the stages, bypass of same-cycle writes ----
  reg acc_re;
  reg [LOG_ACC-1:0] acc_ri;
  wire [ACC_W-1:0] acc_rd_raw;
  reg acc_we;
  reg [LOG_ACC-1:0] acc_wi;
  reg [ACC_W-1:0] acc_wd;
  reg byp_hit;
  reg [ACC_W-1:0] byp_data;
  wire [ACC_W-1:0] acc_val = byp_hit ? byp_data : acc_rd_raw;

  always @* begin
    acc_re = 1'b0;
    acc_ri = dst_idx[LOG_ACC-1:0];
    if (s1_ok) begin
      acc_re = 1'b1;
      acc_ri = l_vec ? src_idx[LOG_ACC-1:0] : dst_idx[LOG_ACC-1:0];
    end else if (s2_valid && l_vec) begin
      acc_re = 1'b1;
      acc_ri = s2_dst;
    end
  end

  vta_sram #(
      .WIDTH(ACC_W),
      .LOG_DEPTH(LOG_ACC)
  ) u_acc_sram (
      .clk(clk),
      .wr_en(acc_we),
      .wr_idx(acc_wi),
      .wr_data(acc_wd),
      .rd_en(acc_re),
      .rd_idx(acc_ri),
      .rd_data(acc_rd_raw)
  );

  assign inp_rd_en = s1_ok && l_gemm;
  assign inp_rd_idx = src_idx[`VTA_LOG_INP_DEPTH-1:0];
  assign wgt_rd_en = s1_ok && l_gemm;
  assign wgt_rd_idx = wgt_idx[`VTA_LOG_WGT_DEPTH-1:0];

  // ---- datapaths ----
  wire [ACC_W-1:0] gemm_out, alu_out;
  gemm_core u_gemm (
      .reset(l_reset),
      .inp(inp_rd_data),
      .wgt(wgt_rd_data),
      .acc_in(acc_val),
      .acc_out(gemm_out)
  );
  wire alu_vec_stage = l_vec;  // vector ALU computes in S3, immediate ALU in S2
  tensor_alu u_alu (
      .op(l_alu_op),
      .use_imm(l_use_imm),
      .imm(l_imm),
      .a(acc_val),
      .b(s3_src_val),
      .out(alu_out)
  );

  wire wb_valid = alu_vec_stage ? s3_valid : s2_valid;
  wire [LOG_ACC-1:0] wb_idx = alu_vec_stage ? s3_dst : s2_dst;
  wire [ACC_W-1:0] wb_data = l_gemm ? gemm_out : alu_out;

  always @* begin
    acc_we = 1'b0;
    acc_wi = wb_idx;
    acc_wd = wb_data;
    if (wb_valid) begin
      acc_we = 1'b1;
    end else if (acc_dma_we) begin
      acc_we = 1'b1;
      acc_wi = acc_dma_wi;
      acc_wd = acc_dma_wd;
    end else if (a8_we) begin
      acc_we = 1'b1;
      acc_wi = a8_wi;
      acc_wd = a8_ext;
    end
  end

  // the output buffer gets the low OUT_WIDTH bits of every lane GEMM/ALU writes
  reg [`VTA_OUT_ELEM_BYTES*8-1:0] out_bytes;
  always @* begin
    for (li = 0; li < kLanes; li = li + 1) out_bytes[li*OW+:OW] = wb_data[li*AW+:OW];
  end
  assign out_wr_en = wb_valid;
  assign out_wr_idx = wb_idx;
  assign out_wr_data = out_bytes;

  // end cycle of a GEMM/ALU loop: a countdown from its contract duration
  reg [63:0] countdown;  // cycles left until E (E when it reads 1)
  wire loop_end = mode == M_LOOP && running && countdown == 64'd1;
  // A load engine's finish may come in the start cycle itself (y_size = 0 without padding,
  // E = S), before `running` is set, as in the load unit.
  wire end_now = !error && (instant || uop_fin || acc_fin || a8_fin || loop_end);
  assign finish = issue && h_is_finish;
  assign g2l_push = end_now && (running ? q_push_prev : h_push_prev);
  assign g2s_push = end_now && (running ? q_push_next : h_push_next);
  // E follows the last issue (S + N; ALU-vector: S + 2N - 1) by the pipeline depth D
  wire h_vec = h_is_alu && !q_insn[`VTA_ALU_USE_IMM_LO];
  wire [63:0] h_duration = h_vec ? (h_iters << 1) + (kPipeDepth - 64'd1) : h_iters + kPipeDepth;

  always @(posedge clk) begin
    byp_hit  <= acc_re && acc_we && acc_wi == acc_ri;
    byp_data <= acc_wd;
    if (s2_valid && l_vec) s3_src_val <= acc_val;
    s3_dst <= s2_dst;
    s2_dst <= dst_idx[LOG_ACC-1:0];
    s1_off_d <= off_out_d + off_in_d;
    s1_off_s <= off_out_s + off_in_s;
    s1_off_w <= off_out_w + off_in_w;
  end

  always @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      mode <= M_NONE;
      issuing <= 1'b0;
      s1_valid <= 1'b0;
      s2_valid <= 1'b0;
      s3_valid <= 1'b0;
      error <= 1'b0;
      err_code <= 0;
      err_value <= 0;
      insn_done <= 0;
      insn_started <= 0;
      uop_bytes <= 0;
      acc_bytes <= 0;
      gemm_count <= 0;
      alu_count <= 0;
      busy_cycles <= 0;
      idle_cycles <= 0;
      stall_cycles <= 0;
      mem_stall_cycles <= 0;
      alu_active <= 0;
      uops_issued <= 0;
    end else begin
      s1_valid <= s0_fire;
      s2_valid <= s1_ok;
      s3_valid <= s2_valid && l_vec;
      if (running || issue) busy_cycles <= busy_cycles + 1'b1;
      else if (!q_valid) idle_cycles <= idle_cycles + 1'b1;
      else if (h_pop_prev && !l2g_avail) stall_cycles[0+:64] <= stall_cycles[0+:64] + 1'b1;
      else if (h_pop_next && !s2g_avail) stall_cycles[64+:64] <= stall_cycles[64+:64] + 1'b1;
      else if (h_push_prev && g2l_full) stall_cycles[128+:64] <= stall_cycles[128+:64] + 1'b1;
      else stall_cycles[192+:64] <= stall_cycles[192+:64] + 1'b1;
      if (uop_ms || acc_ms || a8_ms) mem_stall_cycles <= mem_stall_cycles + 1'b1;
      if (running && mode == M_LOOP) countdown <= countdown - 1'b1;
      running <= (running || issue) && !end_now;

      if (issue) begin
        insn_started <= insn_started + 1'b1;
        q_push_prev <= h_push_prev;
        q_push_next <= h_push_next;
        countdown <= h_duration;
        if (start_uop || start_acc || start_acc8) mode <= M_LOAD;
        else if (start_loop) mode <= M_LOOP;
        else mode <= M_NONE;
        if (start_loop && h_is_alu) alu_active <= alu_active + (h_vec ? h_iters << 1 : h_iters);
        if (start_uop) uop_bytes <= uop_bytes + (h_nelem << 2);
        if (start_acc || start_acc8) acc_bytes <= acc_bytes + (h_nelem << kLogAccE);
        if (h_is_gemm && !h_reset) gemm_count <= gemm_count + h_iters;
        if (h_is_alu) alu_count <= alu_count + h_iters;
        // latch the loop instruction
        l_gemm <= h_is_gemm;
        l_reset <= h_reset;
        l_vec <= h_is_alu && !q_insn[`VTA_ALU_USE_IMM_LO];
        l_use_imm <= q_insn[`VTA_ALU_USE_IMM_LO];
        l_alu_op <= q_insn[`VTA_ALU_ALU_OPCODE_LO+:3];
        l_imm <= q_insn[`VTA_ALU_IMM_LO+:16];
        l_uop_bgn <= h_uop_bgn;
        l_uop_end <= h_uop_end;
        l_iter_out <= h_iter_out;
        l_iter_in <= h_iter_in;
        l_dfo <= {{(32 - `VTA_GEMM_DST_FACTOR_OUT_W) {1'b0}},
                  q_insn[`VTA_GEMM_DST_FACTOR_OUT_LO+:`VTA_GEMM_DST_FACTOR_OUT_W]};
        l_dfi <= {{(32 - `VTA_GEMM_DST_FACTOR_IN_W) {1'b0}},
                  q_insn[`VTA_GEMM_DST_FACTOR_IN_LO+:`VTA_GEMM_DST_FACTOR_IN_W]};
        if (h_is_alu) begin
          l_sfo <= {{(32 - `VTA_ALU_SRC_FACTOR_OUT_W) {1'b0}},
                    q_insn[`VTA_ALU_SRC_FACTOR_OUT_LO+:`VTA_ALU_SRC_FACTOR_OUT_W]};
          l_sfi <= {{(32 - `VTA_ALU_SRC_FACTOR_IN_W) {1'b0}},
                    q_insn[`VTA_ALU_SRC_FACTOR_IN_LO+:`VTA_ALU_SRC_FACTOR_IN_W]};
          l_wfo <= 0;
          l_wfi <= 0;
        end else begin
          l_sfo <= {{(32 - `VTA_GEMM_SRC_FACTOR_OUT_W) {1'b0}},
                    q_insn[`VTA_GEMM_SRC_FACTOR_OUT_LO+:`VTA_GEMM_SRC_FACTOR_OUT_W]};
          l_sfi <= {{(32 - `VTA_GEMM_SRC_FACTOR_IN_W) {1'b0}},
                    q_insn[`VTA_GEMM_SRC_FACTOR_IN_LO+:`VTA_GEMM_SRC_FACTOR_IN_W]};
          l_wfo <= {{(32 - `VTA_GEMM_WGT_FACTOR_OUT_W) {1'b0}},
                    q_insn[`VTA_GEMM_WGT_FACTOR_OUT_LO+:`VTA_GEMM_WGT_FACTOR_OUT_W]};
          l_wfi <= {{(32 - `VTA_GEMM_WGT_FACTOR_IN_W) {1'b0}},
                    q_insn[`VTA_GEMM_WGT_FACTOR_IN_LO+:`VTA_GEMM_WGT_FACTOR_IN_W]};
        end
        issuing <= start_loop;
        phase <= 1'b0;
        upc <= {1'b0, h_uop_bgn};
        it_in <= 0;
        it_out <= 0;
        off_out_d <= 0;
        off_out_s <= 0;
        off_out_w <= 0;
        off_in_d <= 0;
        off_in_s <= 0;
        off_in_w <= 0;
      end

      // S0: advance the loop nest (outer, inner, uop)
      if (issuing && !error) phase <= l_vec ? !phase : 1'b0;
      if (s0_fire) begin
        // moves during a long loop, when no instruction finishes: the watchdog's progress
        uops_issued <= uops_issued + 1'b1;
        if (last_iter) issuing <= 1'b0;
        if (!upc_wrap) begin
          upc <= upc + 1'b1;
        end else begin
          upc <= {1'b0, l_uop_bgn};
          if (!in_wrap) begin
            it_in <= it_in + 1'b1;
            off_in_d <= off_in_d + l_dfi;
            off_in_s <= off_in_s + l_sfi;
            off_in_w <= off_in_w + l_wfi;
          end else begin
            it_in <= 0;
            off_in_d <= 0;
            off_in_s <= 0;
            off_in_w <= 0;
            it_out <= it_out + 1'b1;
            off_out_d <= off_out_d + l_dfo;
            off_out_s <= off_out_s + l_sfo;
            off_out_w <= off_out_w + l_wfo;
          end
        end
      end

      // S1: range errors stop the unit
      if (s1_valid && !error && (bad_dst || bad_src || bad_wgt)) begin
        error <= 1'b1;
        err_code <= bad_dst ? 4'd1 : bad_src ? 4'd2 : 4'd3;
        err_value <= bad_dst ? dst_idx : bad_src ? src_idx : wgt_idx;
        issuing <= 1'b0;
      end

      if (end_now) insn_done <= insn_done + 1'b1;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = acc_busy ^ a8_busy ^ uop_busy ^ (|q_insn) ^ (|uop_rd_data) ^ (|h_iters) ^
      (|h_nelem);
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
