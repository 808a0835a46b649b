// load: the load unit. Executes LOAD INP and LOAD WGT from its instruction queue, in order,
// one at a time (sim/README.md sections 1 and 4): it starts the head instruction in the first
// cycle S in which its pop (pop_next: g2l) has a visible token and its push (push_next: l2g)
// has room, pops instruction and token in S, runs the DMA (one tensor_load per buffer, read
// clients inp and wgt) and pushes in the end cycle E. A LOAD with x_size = 0 is a NOP (E = S).
`default_nettype none
`include "vta_params.vh"
module load #(
    // bits of one SRAM write: an element, or a whole beat of elements narrower than it
    parameter integer INP_DW = `VTA_INP_ELEM_BYTES >= `VTA_BUS_BYTES ?
        `VTA_INP_ELEM_BYTES * 8 : `VTA_BUS_WIDTH,
    parameter integer WGT_DW = `VTA_WGT_ELEM_BYTES >= `VTA_BUS_BYTES ?
        `VTA_WGT_ELEM_BYTES * 8 : `VTA_BUS_WIDTH
) (
    input  wire                                clk,
    input  wire                                rst,
    // instruction queue
    input  wire                                q_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [                       127:0] q_insn,  // opcode and store-only bits unused
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                                q_pop,
    // dependency tokens
    input  wire                                g2l_avail,
    output wire                                g2l_pop,
    input  wire                                l2g_full,
    output wire                                l2g_push,
    // memory read clients inp (index 0) and wgt (index 1)
    output wire [                         1:0] req_valid,
    input  wire [                         1:0] req_grant,
    output wire [                        63:0] req_addr,
    output wire [                        17:0] req_beats,
    input  wire [                         1:0] data_valid,
    input  wire [          `VTA_BUS_WIDTH-1:0] data,
    // SRAM write ports
    output wire                                inp_wr_en,
    output wire [      `VTA_LOG_INP_DEPTH-1:0] inp_wr_idx,
    output wire [                         7:0] inp_wr_count,  // elements from inp_wr_idx
    output wire [              INP_DW-1:0]     inp_wr_data,    // element j at bits j*E*8
    output wire                                wgt_wr_en,
    output wire [      `VTA_LOG_WGT_DEPTH-1:0] wgt_wr_idx,
    output wire [                         7:0] wgt_wr_count,
    output wire [              WGT_DW-1:0]     wgt_wr_data,
    // event counters
    output reg  [                        63:0] inp_bytes,
    output reg  [                        63:0] wgt_bytes,
    output reg  [                        31:0] insn_done,
    output reg  [                        63:0] busy_cycles,   // sum of E - S + 1
    output reg  [                        63:0] idle_cycles,   // no visible instruction
    output reg  [                        63:0] stall_g2l,      // head waits for a g2l token
    output reg  [                        63:0] stall_l2g_full, // head waits for room in l2g
    output reg  [                        63:0] mem_stall_cycles,  // DMA cycles waiting on memory
    output wire                                idle
);
  localparam integer kLogInpE = $clog2(`VTA_INP_ELEM_BYTES);
  localparam integer kLogWgtE = $clog2(`VTA_WGT_ELEM_BYTES);

  // ---- decode of the queue head ----
  wire h_pop_next = q_insn[4];
  wire h_push_next = q_insn[6];
  wire [2:0] h_type = q_insn[`VTA_MEM_MEMORY_TYPE_LO+:3];
  wire [15:0] h_xs = q_insn[`VTA_MEM_X_SIZE_LO+:16];
  wire [15:0] h_ys = q_insn[`VTA_MEM_Y_SIZE_LO+:16];
  wire [63:0] h_nelem = {48'b0, h_xs} * {48'b0, h_ys};

  reg running;  // an instruction started before this cycle has not ended
  reg push_q;  // push_next of the running instruction
  wire ready = (!h_pop_next || g2l_avail) && (!h_push_next || !l2g_full);
  wire issue = !running && q_valid && ready;
  wire h_nop = h_xs == 16'd0 || (h_type != 3'd1 && h_type != 3'd2);
  wire start_inp = issue && !h_nop && h_type == 3'd2;
  wire start_wgt = issue && !h_nop && h_type == 3'd1;
  assign q_pop = issue;
  assign g2l_pop = issue && h_pop_next;
  assign idle = !running && !issue;

  wire inp_busy, wgt_busy, inp_fin, wgt_fin, inp_ms, wgt_ms;

  tensor_load #(
      .ELEM_BYTES(`VTA_INP_ELEM_BYTES),
      .LOG_ELEM_BYTES(kLogInpE),
      .LOG_DEPTH(`VTA_LOG_INP_DEPTH),
      .DW(INP_DW)
  ) u_inp (
      .clk(clk), .rst(rst), .start(start_inp),
      .sram_base(q_insn[`VTA_MEM_SRAM_BASE_LO+:16]), .dram_base(q_insn[`VTA_MEM_DRAM_BASE_LO+:32]),
      .y_size(h_ys), .x_size(h_xs), .x_stride(q_insn[`VTA_MEM_X_STRIDE_LO+:16]),
      .y_pad_0(q_insn[`VTA_MEM_Y_PAD_0_LO+:4]), .y_pad_1(q_insn[`VTA_MEM_Y_PAD_1_LO+:4]),
      .x_pad_0(q_insn[`VTA_MEM_X_PAD_0_LO+:4]), .x_pad_1(q_insn[`VTA_MEM_X_PAD_1_LO+:4]),
      .busy(inp_busy), .finish(inp_fin), .mem_stall(inp_ms),
      .req_valid(req_valid[0]), .req_grant(req_grant[0]), .req_addr(req_addr[31:0]),
      .req_beats(req_beats[8:0]), .data_valid(data_valid[0]), .data(data),
      .wr_en(inp_wr_en), .wr_idx(inp_wr_idx), .wr_count(inp_wr_count), .wr_data(inp_wr_data));

  tensor_load #(
      .ELEM_BYTES(`VTA_WGT_ELEM_BYTES),
      .LOG_ELEM_BYTES(kLogWgtE),
      .LOG_DEPTH(`VTA_LOG_WGT_DEPTH),
      .DW(WGT_DW)
  ) u_wgt (
      .clk(clk), .rst(rst), .start(start_wgt),
      .sram_base(q_insn[`VTA_MEM_SRAM_BASE_LO+:16]), .dram_base(q_insn[`VTA_MEM_DRAM_BASE_LO+:32]),
      .y_size(h_ys), .x_size(h_xs), .x_stride(q_insn[`VTA_MEM_X_STRIDE_LO+:16]),
      .y_pad_0(q_insn[`VTA_MEM_Y_PAD_0_LO+:4]), .y_pad_1(q_insn[`VTA_MEM_Y_PAD_1_LO+:4]),
      .x_pad_0(q_insn[`VTA_MEM_X_PAD_0_LO+:4]), .x_pad_1(q_insn[`VTA_MEM_X_PAD_1_LO+:4]),
      .busy(wgt_busy), .finish(wgt_fin), .mem_stall(wgt_ms),
      .req_valid(req_valid[1]), .req_grant(req_grant[1]), .req_addr(req_addr[63:32]),
      .req_beats(req_beats[17:9]), .data_valid(data_valid[1]), .data(data),
      .wr_en(wgt_wr_en), .wr_idx(wgt_wr_idx), .wr_count(wgt_wr_count), .wr_data(wgt_wr_data));

  // end cycle E: a NOP ends where it starts, a LOAD when its engine finishes
  wire end_now = (issue && h_nop) || inp_fin || wgt_fin;
  wire push_flag = running ? push_q : h_push_next;
  assign l2g_push = end_now && push_flag;

  always @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      push_q <= 1'b0;
      inp_bytes <= 0;
      wgt_bytes <= 0;
      insn_done <= 0;
      busy_cycles <= 0;
      idle_cycles <= 0;
      stall_g2l <= 0;
      stall_l2g_full <= 0;
      mem_stall_cycles <= 0;
    end else begin
      if (issue) begin
        push_q <= h_push_next;
        if (start_inp) inp_bytes <= inp_bytes + (h_nelem << kLogInpE);
        if (start_wgt) wgt_bytes <= wgt_bytes + (h_nelem << kLogWgtE);
      end
      running <= (running || issue) && !end_now;
      if (end_now) insn_done <= insn_done + 1'b1;
      if (running || issue) busy_cycles <= busy_cycles + 1'b1;
      else if (!q_valid) idle_cycles <= idle_cycles + 1'b1;
      else if (h_pop_next && !g2l_avail) stall_g2l <= stall_g2l + 1'b1;
      else stall_l2g_full <= stall_l2g_full + 1'b1;
      if (inp_ms || wgt_ms) mem_stall_cycles <= mem_stall_cycles + 1'b1;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = inp_busy ^ wgt_busy;
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
