// fetch: reads the instruction stream [insn_addr, insn_addr + 16*insn_count) from DRAM and
// routes each instruction to the queue of the unit that executes it: LOAD INP/WGT -> load;
// STORE -> store; everything else (LOAD UOP/ACC/ACC_8BIT, GEMM, ALU, FINISH) -> compute.
// Timing contract (sim/README.md section 3): the stream is cut by the burst rule; burst 0 is
// posted in cycle 0; burst k+1 is posted when burst k has delivered its last beat and every
// instruction of burst k-1 has been dispatched (a two-burst ping-pong buffer, one burst in
// flight). An instruction whose last beat arrives in cycle a is dispatched at a+1 at the
// earliest, one per cycle, while its target queue has room. Requires a bus of <= 16 bytes.
`default_nettype none
`include "vta_params.vh"
module fetch (
    input  wire                      clk,
    input  wire                      rst,
    input  wire                      start,       // new run: latch address and count
    input  wire [              31:0] insn_addr,   // byte address of instruction 0 (16-aligned)
    input  wire [              31:0] insn_count,
    output wire                      idle,        // cannot make progress by itself
    // memory read port (the fetch client)
    output reg                       req_valid,
    input  wire                      req_grant,
    output reg  [              31:0] req_addr,
    output reg  [               8:0] req_beats,
    input  wire                      data_valid,
    input  wire [`VTA_BUS_WIDTH-1:0] data,
    // instruction queues
    output wire                      load_push,
    input  wire                      load_full,
    output wire                      compute_push,
    input  wire                      compute_full,
    output wire                      store_push,
    input  wire                      store_full,
    output wire [             127:0] insn,
    output reg  [              63:0] active_cycles,  // run start to the last dispatch, inclusive
    output reg  [              63:0] stall_cycles   // cycles the head waited for queue room
);
  localparam integer B = `VTA_BUS_BYTES;
  localparam integer LOG_B = `VTA_LOG_BUS_BYTES;
  localparam integer K = 16 / B;  // beats per instruction
  localparam [32:0] kMaxBytes = `VTA_MAX_BURST_BEATS * `VTA_BUS_BYTES;
  localparam [32:0] kBound = `VTA_BURST_BOUNDARY_BYTES;
  localparam integer LOG_BUF = `VTA_LOG_FETCH_BUF;

  reg active;
  reg [32:0] base;  // byte address of instruction 0
  reg [32:0] next_addr;  // start of the next burst to post
  reg [32:0] end_addr;  // end of the stream
  reg [31:0] beats_left;  // beats of the burst in flight not yet received
  reg [31:0] end_cur, end_prev;  // instructions completed by the last / previous burst
  reg [31:0] disp_count;  // instructions dispatched
  reg [63:0] cyc;  // cycles since the run started

  // next burst by the contract rule (the stream is beat-aligned as B <= 16)
  wire [32:0] lim_max = next_addr + kMaxBytes;
  wire [32:0] lim_bound = (next_addr & ~(kBound - 1)) + kBound;
  wire [32:0] lim = lim_max < lim_bound ? lim_max : lim_bound;
  wire [32:0] b_end = end_addr < lim ? end_addr : lim;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [32:0] b_beats = (b_end - next_addr) >> LOG_B;
  wire [32:0] b_insns = (b_end - base) >> 4;  // instructions complete after this burst
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- dispatch from the buffer ----
  wire buf_empty, buf_full;
  wire [LOG_BUF:0] buf_count;
  wire [127:0] head;
  wire [2:0] opcode = head[2:0];
  wire [2:0] mem_type = head[`VTA_MEM_MEMORY_TYPE_LO+:3];
  wire to_load = opcode == 3'd0 && (mem_type == 3'd1 || mem_type == 3'd2);
  wire to_store = opcode == 3'd1;
  wire to_compute = !to_load && !to_store;
  wire blocked = (to_load && load_full) || (to_store && store_full) ||
      (to_compute && compute_full);
  wire dispatch = active && !buf_empty && !blocked;
  assign load_push = dispatch && to_load;
  assign store_push = dispatch && to_store;
  assign compute_push = dispatch && to_compute;
  assign insn = head;

  // ---- posting rule ----
  wire beats_done = beats_left == 0 || (beats_left == 1 && data_valid);
  wire [31:0] disp_after = disp_count + {31'b0, dispatch};
  wire more = next_addr < end_addr;
  wire post = active && more && !req_valid && beats_done && disp_after >= end_prev;
  assign idle = !active || (!req_valid && beats_left == 0 && !post &&
                            (buf_empty || blocked));

  // ---- assembly of instructions from beats ----
  wire push;
  wire [127:0] push_data;
  generate
    if (K == 1) begin : g_one
      assign push = data_valid;
      assign push_data = data[127:0];
    end else begin : g_multi
      localparam integer LOG_K = 4 - LOG_B;
      reg [LOG_K-1:0] kb;
      reg [(K-1)*B*8-1:0] asm_q;
      wire last = kb == K[LOG_K-1:0] - 1'b1;
      assign push = data_valid && last;
      assign push_data = {data, asm_q};
      always @(posedge clk) begin
        if (rst || start) kb <= 0;
        else if (data_valid) begin
          kb <= last ? {LOG_K{1'b0}} : kb + 1'b1;
          if (!last) asm_q[kb*B*8+:B*8] <= data;
        end
      end
    end
  endgenerate

  vta_fifo #(
      .WIDTH(128),
      .DEPTH(2 * `VTA_FETCH_CHUNK),
      .LOG_DEPTH(LOG_BUF),
      .COUNT_BITS(LOG_BUF + 1)
  ) u_buffer (
      .clk(clk),
      .rst(rst || start),
      .push(push),
      .push_data(push_data),
      .pop(dispatch),
      .head(head),
      .count(buf_count),
      .full(buf_full),
      .empty(buf_empty)
  );

  always @(posedge clk) begin
    if (rst) begin
      active <= 1'b0;
      req_valid <= 1'b0;
      active_cycles <= 0;
      stall_cycles <= 0;
    end else if (start) begin
      active <= 1'b1;
      req_valid <= 1'b0;
      base <= {1'b0, insn_addr};
      next_addr <= {1'b0, insn_addr};
      end_addr <= {1'b0, insn_addr} + {insn_count[28:0], 4'b0};  // glue: stream fits 4 GiB
      beats_left <= 0;
      end_cur <= 0;
      end_prev <= 0;
      disp_count <= 0;
      cyc <= 0;
      active_cycles <= 0;
      stall_cycles <= 0;
    end else begin
      cyc <= cyc + 1'b1;
      if (dispatch) active_cycles <= cyc + 1'b1;
      if (req_valid && req_grant) req_valid <= 1'b0;
      if (data_valid) beats_left <= beats_left - 1'b1;
      if (post) begin
        req_valid <= 1'b1;
        req_addr <= next_addr[31:0];
        req_beats <= b_beats[8:0];
        beats_left <= b_beats[31:0];
        next_addr <= b_end;
        end_prev <= end_cur;
        end_cur <= b_insns[31:0];
      end
      if (dispatch) disp_count <= disp_count + 1'b1;
      if (active && !buf_empty && blocked) stall_cycles <= stall_cycles + 1'b1;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = buf_full ^ (|buf_count) ^ (|data) ^ (|insn_count[31:29]);
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
