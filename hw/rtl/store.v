// store: the store unit. Executes STORE instructions in order, one at a time: starts (cycle S)
// when its pop (pop_prev: g2s) has a visible token and its push (push_prev: s2g) has room,
// reads the output SRAM tile (contiguous elements sram_base + y*x_size + x) and writes row y
// to DRAM at (dram_base + y*x_stride)*E by the burst rule (sim/README.md sections 2 and 4):
// bursts posted from S (granted S+1, S+2, ...), data beats taken by the memory model in its
// own cycles (the unit keeps the next beat ready: element 0 is read from the SRAM in S, then a
// two-element prefetch buffer), E = the cycle the last burst's write response arrives.
// A STORE with x_size = 0 (or y_size = 0) is a NOP: E = S.
// Elements narrower than a beat (R = bus / E of them per beat): a row's range starts at lane
// (dram_base + y*x_stride) mod R of its first beat and costs ceil((lane + x_size) / R) beats, as
// the burst rule counts them; each SRAM read takes the elements of one beat (the out SRAM gives
// R consecutive elements per read), the prefetch buffer holds beats, and `wr_strb` marks the
// bytes of the row in each beat so that the bytes around it in DRAM are kept.
`default_nettype none
`include "vta_params.vh"
module store #(
    // bits of one out SRAM read: an element, or a beat of elements narrower than it
    parameter integer RD_W = `VTA_OUT_ELEM_BYTES >= `VTA_BUS_BYTES ?
        `VTA_OUT_ELEM_BYTES * 8 : `VTA_BUS_WIDTH
) (
    input  wire                                clk,
    input  wire                                rst,
    // instruction queue
    input  wire                                q_valid,
    input  wire [                       127:0] q_insn,
    output wire                                q_pop,
    // dependency tokens
    input  wire                                g2s_avail,
    output wire                                g2s_pop,
    input  wire                                s2g_full,
    output wire                                s2g_push,
    // output SRAM read port
    output wire                                out_rd_en,
    output wire [      `VTA_LOG_ACC_DEPTH-1:0] out_rd_idx,
    input  wire [                   RD_W-1:0]  out_rd_data,  // R elements from out_rd_idx
    // memory write port
    output wire                                wr_req_valid,
    input  wire                                wr_req_ready,   // grant of the posted burst
    output wire [                        31:0] wr_req_addr,
    output wire [                         8:0] wr_req_beats,
    output wire                                wr_data_valid,
    input  wire                                wr_data_ready,  // the memory takes a beat
    output wire [          `VTA_BUS_WIDTH-1:0] wr_data,
    output wire [          `VTA_BUS_BYTES-1:0] wr_strb,  // bytes of wr_data to write
    input  wire                                wr_resp_valid,
    // event counters
    output reg  [                        63:0] out_bytes,
    output reg  [                        31:0] insn_done,
    output reg  [                        63:0] busy_cycles,   // sum of E - S + 1
    output reg  [                        63:0] idle_cycles,   // no visible instruction
    output reg  [                        63:0] stall_g2s,      // head waits for a g2s token
    output reg  [                        63:0] stall_s2g_full, // head waits for room in s2g
    output reg  [                        63:0] mem_stall_cycles,  // busy, no beat sent
    output wire                                idle
);
  localparam integer E = `VTA_OUT_ELEM_BYTES;
  localparam integer LOG_E = $clog2(`VTA_OUT_ELEM_BYTES);
  localparam integer B = `VTA_BUS_BYTES;
  localparam integer LOG_B = `VTA_LOG_BUS_BYTES;
  localparam NARROW = E < B;  // elements narrower than a beat
  localparam integer K = NARROW ? 1 : E / B;  // beats per element
  localparam integer LOG_K = NARROW ? 0 : LOG_E - LOG_B;
  localparam integer LOG_R = NARROW ? LOG_B - LOG_E : 0;  // elements per beat: R = 2^LOG_R
  localparam integer R = 1 << LOG_R;
  localparam integer LOG_RB = LOG_R > 0 ? LOG_R : 1;
  localparam integer BUF_W = NARROW ? B * 9 : E * 8;  // a beat and its strobes, or an element
  localparam integer LOG_KB = LOG_K > 0 ? LOG_K : 1;
  localparam [31:0] kBound = `VTA_BURST_BOUNDARY_BYTES;
  localparam [31:0] kMaxBurst = `VTA_MAX_BURST_BEATS;

  wire h_pop_prev = q_insn[3];
  wire h_push_prev = q_insn[5];
  wire [15:0] h_x_size = q_insn[`VTA_MEM_X_SIZE_LO+:16];
  wire [15:0] h_y_size = q_insn[`VTA_MEM_Y_SIZE_LO+:16];
  wire [63:0] h_nelem = {48'b0, h_x_size} * {48'b0, h_y_size};

  reg running, push_q;
  wire ready = (!h_pop_prev || g2s_avail) && (!h_push_prev || !s2g_full);
  wire issue = !running && q_valid && ready;
  wire is_nop = h_x_size == 16'd0 || h_y_size == 16'd0;
  assign q_pop = issue;
  assign g2s_pop = issue && h_pop_prev;
  assign idle = !running && !issue;  // nothing in flight and nothing starting

  // ---- latched instruction ----
  reg [15:0] x_size, x_stride;

  // ---- request side: bursts of each row ----
  reg rq_active;
  reg [31:0] rq_row_elem;
  reg [15:0] rq_rows_left;
  reg [31:0] rq_addr, rq_rem;
  wire new_row = rq_rem == 0;
  wire [31:0] row_a = rq_row_elem << LOG_E;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [32:0] row_end_up = ({1'b0, row_a} + ({17'b0, x_size} << LOG_E) + (B - 1)) >> LOG_B;
  /* verilator lint_on UNUSEDSIGNAL */
  // beats of the row (beat-aligned start: the burst rule), or K per element
  wire [31:0] row_beats = NARROW ? row_end_up[31:0] - (row_a >> LOG_B) :
      {16'b0, x_size} << LOG_K;
  wire [31:0] row_a_beat = row_a & ~(B - 1);
  wire [31:0] cur_addr = new_row ? row_a_beat : rq_addr;
  wire [31:0] cur_rem = new_row ? row_beats : rq_rem;
  wire [31:0] to_bound = (kBound - (cur_addr & (kBound - 1))) >> LOG_B;
  wire [31:0] burst0 = cur_rem < kMaxBurst ? cur_rem : kMaxBurst;
  wire [31:0] burst = burst0 < to_bound ? burst0 : to_bound;
  assign wr_req_valid = rq_active && (!new_row || rq_rows_left != 0);
  assign wr_req_addr = cur_addr;
  assign wr_req_beats = burst[8:0];
  wire req_fire = wr_req_valid && wr_req_ready;
  reg [31:0] bursts_open;  // requested, response not yet received

  // ---- data side: SRAM reads into a two-element buffer, beats out of its head ----
  reg [31:0] rd_left;  // elements not yet read from the SRAM
  reg [`VTA_LOG_ACC_DEPTH-1:0] rd_idx;
  reg rd_inflight;
  wire [BUF_W-1:0] buf_head;
  wire [BUF_W-1:0] buf_in;
  wire [1:0] buf_count;
  wire buf_empty, buf_full;
  reg [LOG_KB-1:0] kb;  // beat of the head element (stays 0 when K = 1)
  wire last_beat = K == 1 ? 1'b1 : kb == K[LOG_KB-1:0] - 1'b1;
  wire beat_fire = wr_data_valid && wr_data_ready;
  wire buf_pop = beat_fire && last_beat;
  wire [2:0] occ = {1'b0, buf_count} + {2'b0, rd_inflight} - {2'b0, buf_pop};
  // element 0 is read in S (from the queue head), the rest while prefetch room is left
  assign out_rd_en = (issue && !is_nop) || (running && rd_left != 0 && occ < 3'd2);
  assign out_rd_idx = issue ? q_insn[`VTA_MEM_SRAM_BASE_LO+:`VTA_LOG_ACC_DEPTH] : rd_idx;
  assign wr_data_valid = running && !buf_empty;
  // elements of each SRAM read: 1, or the beat's share of its row (narrow)
  wire [31:0] rd_n;
  generate
    if (NARROW) begin : g_narrow
      // the beat read now: its first lane (the row's start lane on a row's first beat) and count
      reg rd_first;  // the next read is the first beat of its row
      reg [31:0] rd_row_elem;  // DRAM element address of the row being read
      reg [15:0] rd_dx;  // elements of that row not yet read
      wire [31:0] lo_elem = issue ? q_insn[`VTA_MEM_DRAM_BASE_LO+:32] : rd_row_elem;
      wire [LOG_RB-1:0] lo = (issue || rd_first) ? lo_elem[LOG_RB-1:0] : {LOG_RB{1'b0}};
      wire [15:0] dx = issue ? h_x_size : rd_dx;
      wire [15:0] room = R[15:0] - {{(16 - LOG_RB) {1'b0}}, lo};
      wire [15:0] n = dx < room ? dx : room;
      reg [LOG_RB-1:0] lo_q;
      reg [15:0] n_q;
      wire [31:0] lo_b = {{(32 - LOG_RB) {1'b0}}, lo_q} << LOG_E;  // first byte in the beat
      wire [B-1:0] strb = ~({B{1'b1}} << ({16'b0, n_q} << LOG_E)) << lo_b;
      assign rd_n = {16'b0, n};
      assign buf_in = {strb, out_rd_data << (lo_b << 3)};
      assign wr_data = buf_head[B*8-1:0];
      assign wr_strb = buf_head[B*9-1:B*8];
      always @(posedge clk) begin
        if (out_rd_en) begin
          lo_q <= lo;
          n_q <= n;
          rd_first <= n == dx;
          if (n == dx) begin
            rd_dx <= issue ? h_x_size : x_size;
            rd_row_elem <= lo_elem + {16'b0, issue ? q_insn[`VTA_MEM_X_STRIDE_LO+:16] : x_stride};
          end else begin
            rd_dx <= dx - n;
            rd_row_elem <= lo_elem;
          end
        end
      end
    end else begin : g_wide
      assign rd_n = 32'd1;
      assign buf_in = out_rd_data;
      assign wr_data = buf_head[kb*B*8+:B*8];
      assign wr_strb = {B{1'b1}};
    end
  endgenerate

  vta_fifo #(
      .WIDTH(BUF_W),
      .DEPTH(2),
      .LOG_DEPTH(1),
      .COUNT_BITS(2)
  ) u_buf (
      .clk(clk),
      .rst(rst),
      .push(rd_inflight),
      .push_data(buf_in),
      .pop(buf_pop),
      .head(buf_head),
      .count(buf_count),
      .full(buf_full),
      .empty(buf_empty)
  );

  // E: the response of the last burst (all posted, this is the only one still open)
  wire last_resp = running && !rq_active && wr_resp_valid && bursts_open == 1;
  wire end_now = (issue && is_nop) || last_resp;
  assign s2g_push = end_now && (running ? push_q : h_push_prev);

  always @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      push_q <= 1'b0;
      rq_active <= 1'b0;
      rd_inflight <= 1'b0;
      rd_left <= 0;
      bursts_open <= 0;
      kb <= 0;
      out_bytes <= 0;
      insn_done <= 0;
      busy_cycles <= 0;
      idle_cycles <= 0;
      stall_g2s <= 0;
      stall_s2g_full <= 0;
      mem_stall_cycles <= 0;
    end else begin
      rd_inflight <= out_rd_en;
      if (running || issue) busy_cycles <= busy_cycles + 1'b1;
      else if (!q_valid) idle_cycles <= idle_cycles + 1'b1;
      else if (h_pop_prev && !g2s_avail) stall_g2s <= stall_g2s + 1'b1;
      else stall_s2g_full <= stall_s2g_full + 1'b1;
      // E - S - beats: the cycles S+1..E without a data beat
      if (running && !beat_fire) mem_stall_cycles <= mem_stall_cycles + 1'b1;
      running <= (running || issue) && !end_now;
      if (end_now) insn_done <= insn_done + 1'b1;
      if (issue) begin
        push_q <= h_push_prev;
        x_size <= h_x_size;
        x_stride <= q_insn[`VTA_MEM_X_STRIDE_LO+:16];
        rq_row_elem <= q_insn[`VTA_MEM_DRAM_BASE_LO+:32];
        rq_rows_left <= h_y_size;
        rq_rem <= 0;
        rq_active <= !is_nop;
        rd_idx <= q_insn[`VTA_MEM_SRAM_BASE_LO+:`VTA_LOG_ACC_DEPTH] +
            rd_n[`VTA_LOG_ACC_DEPTH-1:0];
        rd_left <= is_nop ? 32'd0 : h_nelem[31:0] - rd_n;
        kb <= 0;
        if (!is_nop) out_bytes <= out_bytes + (h_nelem << LOG_E);
      end else begin
        if (req_fire) begin
          rq_addr <= cur_addr + (burst << LOG_B);
          rq_rem <= cur_rem - burst;
          if (new_row) begin
            rq_row_elem <= rq_row_elem + {16'b0, x_stride};
            rq_rows_left <= rq_rows_left - 1'b1;
          end
        end
        if (rq_active && !wr_req_valid) rq_active <= 1'b0;
        if (out_rd_en) begin
          rd_idx <= rd_idx + rd_n[`VTA_LOG_ACC_DEPTH-1:0];
          rd_left <= rd_left - rd_n;
        end
      end
      if (req_fire && !wr_resp_valid) bursts_open <= bursts_open + 1'b1;
      else if (!req_fire && wr_resp_valid) bursts_open <= bursts_open - 1'b1;
      if (beat_fire) begin
        if (K > 1) kb <= last_beat ? {LOG_KB{1'b0}} : kb + 1'b1;
      end
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = buf_full ^ (|q_insn) ^ (|h_nelem);
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
