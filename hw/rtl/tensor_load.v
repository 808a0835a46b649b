// tensor_load: the DMA engine of one LOAD instruction (2-D strided copy DRAM -> SRAM with
// zero padding), instantiated once per memory client: inp and wgt in the load unit, uop, acc
// and acc_8bit in the compute unit, the instruction stream in fetch. Timing contract
// (sim/README.md section 4), for an instruction started in cycle S:
//  * S+1 .. S+P: one zero padding element written per cycle (P padding elements);
//  * bursts posted in S+P (first one eligible at S+P+1), then one new burst eligible the
//    cycle after each grant: rows y = 0..y_size-1, each row the byte range
//    [(dram_base + y*x_stride)*E, +x_size*E) cut by the burst rule (tensor_burst logic below);
//  * a data beat on the bus in cycle b is written into the SRAM in cycle b+1 (an element of
//    K = E/B beats when the last of them arrived; up to R = B/E elements of one beat at once
//    when elements are narrower than the bus, which the caller writes into R banks);
//  * `finish` is high in the end cycle E: the last SRAM write, or S+P without data rows.
`default_nettype none
`include "vta_params.vh"
module tensor_load #(
    parameter integer ELEM_BYTES = 16,
    parameter integer LOG_ELEM_BYTES = 4,
    parameter integer LOG_DEPTH = 11,
    // bits of one SRAM write: an element, or a whole beat when elements are narrower than it
    parameter integer DW = (ELEM_BYTES >= `VTA_BUS_BYTES) ? ELEM_BYTES * 8 : `VTA_BUS_WIDTH
) (
    input  wire                      clk,
    input  wire                      rst,
    // instruction (sampled when start is high, in cycle S)
    input  wire                      start,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [              15:0] sram_base,  // the glue checks the tile fits LOG_DEPTH
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [              31:0] dram_base,
    input  wire [              15:0] y_size,
    input  wire [              15:0] x_size,
    input  wire [              15:0] x_stride,
    input  wire [               3:0] y_pad_0,
    input  wire [               3:0] y_pad_1,
    input  wire [               3:0] x_pad_0,
    input  wire [               3:0] x_pad_1,
    output reg                       busy,
    output wire                      finish,     // this cycle is the end cycle E
    output wire                      mem_stall,  // busy, no padding write, no beat arriving
    // read requests: the posted burst (eligible while valid), granted by the arbiter
    output wire                      req_valid,
    input  wire                      req_grant,
    output wire [              31:0] req_addr,   // beat-aligned byte address
    output wire [               8:0] req_beats,
    // read data beats of this client
    input  wire                      data_valid,
    input  wire [`VTA_BUS_WIDTH-1:0] data,
    // SRAM write: `wr_count` consecutive elements from `wr_idx` (element j at wr_data[j*E*8])
    output wire                      wr_en,
    output wire [     LOG_DEPTH-1:0] wr_idx,
    output wire [               7:0] wr_count,
    output wire [            DW-1:0] wr_data
);
  localparam integer B = `VTA_BUS_BYTES;
  localparam integer LOG_B = `VTA_LOG_BUS_BYTES;
  localparam integer EW = ELEM_BYTES * 8;
  localparam [31:0] kBound = `VTA_BURST_BOUNDARY_BYTES;
  localparam [31:0] kMaxBurst = `VTA_MAX_BURST_BEATS;

  // ---- latched instruction ----
  reg [15:0] q_xs, q_ys, q_stride;
  reg [3:0] q_yp0, q_xp0, q_xp1;
  reg [16:0] q_w;

  // Products with a 4/5-bit factor (paddings) as shift-and-add, so synthesis spends no DSP on
  // them: a * b for a < 32.
  function automatic [33:0] mul5(input [4:0] a, input [16:0] b);
    integer i;
    begin
      mul5 = 34'd0;
      for (i = 0; i < 5; i = i + 1) if (a[i]) mul5 = mul5 + ({17'd0, b} << i);
    end
  endfunction

  // padding element count P = (yp0 + yp1) * W + ys * (xp0 + xp1)
  wire [16:0] in_w = {13'b0, x_pad_0} + {1'b0, x_size} + {13'b0, x_pad_1};
  /* verilator lint_off UNUSEDSIGNAL */
  wire [33:0] in_p_full = mul5({1'b0, y_pad_0} + {1'b0, y_pad_1}, in_w) +
      mul5({1'b0, x_pad_0} + {1'b0, x_pad_1}, {1'b0, y_size});
  wire [33:0] in_ysw = {18'b0, y_size} * {17'b0, in_w};  // rows of data skipped at once
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] in_p = in_p_full[31:0];

  // ---- padding walker: one padding position per cycle, row-major ----
  reg [31:0] pad_left;
  reg [16:0] pr, pc;
  reg [LOG_DEPTH-1:0] prow_base;  // SRAM index of (pr, 0); indices wrap at the depth
  reg [LOG_DEPTH-1:0] q_ysw;  // y_size * W: the data rows skipped when they have no side pads
  wire pad_write = busy && pad_left != 0;
  function automatic is_data_row(input [16:0] r, input [3:0] yp0, input [15:0] ys);
    is_data_row = r >= {13'b0, yp0} && r < {13'b0, yp0} + {1'b0, ys};
  endfunction
  // first padding position at or after the start of row r
  function automatic [33:0] row_first(input [16:0] r, input [3:0] yp0, input [15:0] ys,
                                      input [3:0] xp0, input [3:0] xp1, input [15:0] xs);
    if (!is_data_row(r, yp0, ys) || xp0 != 0) row_first = {r, 17'd0};
    else if (xp1 != 0) row_first = {r, 1'b0, xs};
    else row_first = {{13'b0, yp0} + {1'b0, ys}, 17'd0};
  endfunction
  wire [16:0] pc_inc = pc + 1'b1;
  wire [16:0] pc_skip = (is_data_row(pr, q_yp0, q_ys) && pc_inc == {13'b0, q_xp0}) ?
      {13'b0, q_xp0} + {1'b0, q_xs} : pc_inc;
  wire pad_new_row = pc_skip == q_w;
  wire [33:0] pad_next = pad_new_row ?
      row_first(pr + 1'b1, q_yp0, q_ys, q_xp0, q_xp1, q_xs) : {pr, pc_skip};
  // a new row either follows pr or, past the data rows without side pads, skips them
  wire [LOG_DEPTH-1:0] next_row_base = prow_base + q_w[LOG_DEPTH-1:0] +
      (pad_next[33:17] == pr + 1'b1 ? {LOG_DEPTH{1'b0}} : q_ysw);
  wire [LOG_DEPTH-1:0] pad_idx = prow_base + pc[LOG_DEPTH-1:0];
  // the walker's first position: row 0, or row yp0 + ys if the tile starts with bare data rows
  wire [33:0] first_pos = row_first(17'd0, y_pad_0, y_size, x_pad_0, x_pad_1, x_size);
  /* verilator lint_off UNUSEDSIGNAL */
  wire [33:0] data_idx0 = {18'b0, sram_base} + mul5({1'b0, y_pad_0}, in_w) +
      {30'b0, x_pad_0};  // SRAM index of data element (0, 0)
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- request side ----
  reg posted;  // bursts are being posted
  reg [31:0] rq_row_elem;  // element address of the next row to request
  reg [16:0] rq_rows_left;  // rows not yet started
  reg [31:0] rq_addr;  // byte address of the next burst of the current row
  reg [31:0] rq_rem;  // beats of the current row not yet requested
  wire new_row = rq_rem == 0;
  wire [31:0] row_a = rq_row_elem << LOG_ELEM_BYTES;
  wire [32:0] row_end = {1'b0, row_a} + ({17'b0, q_xs} << LOG_ELEM_BYTES);
  /* verilator lint_off UNUSEDSIGNAL */
  wire [32:0] row_end_up = (row_end + (B - 1)) >> LOG_B;  // < 2^32 beats: bit 32 is 0
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] row_beats = row_end_up[31:0] - (row_a >> LOG_B);
  wire [31:0] cur_addr = new_row ? {row_a[31:LOG_B], {LOG_B{1'b0}}} : rq_addr;
  wire [31:0] cur_rem = new_row ? row_beats : rq_rem;
  wire [31:0] to_bound = (kBound - (cur_addr & (kBound - 1))) >> LOG_B;
  wire [31:0] burst0 = cur_rem < kMaxBurst ? cur_rem : kMaxBurst;
  wire [31:0] burst = burst0 < to_bound ? burst0 : to_bound;
  assign req_valid = posted && (!new_row || rq_rows_left != 0);
  assign req_addr = cur_addr;
  assign req_beats = burst[8:0];

  // ---- data side: beats -> registered SRAM write of whole elements ----
  reg [31:0] elems_left;  // data elements not yet staged for writing
  reg [15:0] dx_left;  // elements left in the current data row
  reg [LOG_DEPTH-1:0] didx;  // SRAM index of the next data element
  reg [31:0] d_row_elem;  // element address of the current data row
  /* verilator lint_off UNUSEDSIGNAL */
  reg d_first;  // the next beat is the first one of its row (narrow elements only)
  /* verilator lint_on UNUSEDSIGNAL */
  reg wq_valid, wq_last;
  reg [LOG_DEPTH-1:0] wq_idx;
  reg [7:0] wq_count;
  reg [DW-1:0] wq_data;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [15:0] row_gap = {12'b0, q_xp0} + {12'b0, q_xp1};  // index jump at a row end
  /* verilator lint_on UNUSEDSIGNAL */

  // staged write: `n` elements of `edata` leave the bus this cycle
  wire stage;
  wire [15:0] n;
  wire [DW-1:0] edata;
  generate
    if (ELEM_BYTES >= B) begin : g_wide
      localparam integer K = ELEM_BYTES / B;
      if (K == 1) begin : g_one
        assign stage = data_valid;
        assign edata = data;
      end else begin : g_multi
        localparam integer LOG_K = LOG_ELEM_BYTES - LOG_B;
        reg [LOG_K-1:0] kb;
        reg [(K-1)*B*8-1:0] asm_q;
        wire last_beat = kb == K[LOG_K-1:0] - 1'b1;
        assign stage = data_valid && last_beat;
        assign edata = {data, asm_q};
        always @(posedge clk) begin
          if (rst || start) kb <= 0;
          else if (data_valid) begin
            kb <= last_beat ? {LOG_K{1'b0}} : kb + 1'b1;
            if (!last_beat) asm_q[kb*B*8+:B*8] <= data;
          end
        end
      end
      assign n = 16'd1;
    end else begin : g_narrow
      // R elements per beat; the first beat of a row starts at lane row_elem mod R
      localparam integer LOG_R = LOG_B - LOG_ELEM_BYTES;
      localparam integer R = B / ELEM_BYTES;
      wire [LOG_R-1:0] lo = d_first ? d_row_elem[LOG_R-1:0] : {LOG_R{1'b0}};
      wire [15:0] room = R[15:0] - {{(16 - LOG_R) {1'b0}}, lo};
      assign n = dx_left < room ? dx_left : room;
      assign stage = data_valid;
      assign edata = data >> ({{(32 - LOG_R) {1'b0}}, lo} * EW);
    end
  endgenerate
  wire row_end_now = stage && n == dx_left;

  assign mem_stall = busy && !pad_write && !data_valid;
  assign wr_en = wq_valid || pad_write;
  assign wr_idx = pad_write ? pad_idx : wq_idx;
  assign wr_count = pad_write ? 8'd1 : wq_count;
  assign wr_data = pad_write ? {DW{1'b0}} : wq_data;
  assign finish = (start && in_p == 0 && y_size == 0) ||
      (pad_write && pad_left == 1 && q_ys == 0) || (wq_valid && wq_last);

  always @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0;
      posted <= 1'b0;
      wq_valid <= 1'b0;
      pad_left <= 0;
    end else begin
      wq_valid <= 1'b0;
      if (start) begin
        busy <= !(in_p == 0 && y_size == 0);
        q_xs <= x_size;
        q_ys <= y_size;
        q_stride <= x_stride;
        q_yp0 <= y_pad_0;
        q_xp0 <= x_pad_0;
        q_xp1 <= x_pad_1;
        q_w <= in_w;
        pad_left <= in_p;
        {pr, pc} <= first_pos;
        q_ysw <= in_ysw[LOG_DEPTH-1:0];
        // row 0 unless the tile starts with data rows without side pads (then row yp0 + ys = ys)
        prow_base <= sram_base[LOG_DEPTH-1:0] +
            (first_pos[33:17] == 17'd0 ? {LOG_DEPTH{1'b0}} : in_ysw[LOG_DEPTH-1:0]);
        posted <= in_p == 0 && y_size != 0;
        rq_row_elem <= dram_base;
        rq_rows_left <= {1'b0, y_size};
        rq_rem <= 0;
        elems_left <= {16'b0, x_size} * {16'b0, y_size};
        dx_left <= x_size;
        d_row_elem <= dram_base;
        d_first <= 1'b1;
        didx <= data_idx0[LOG_DEPTH-1:0];
      end else begin
        if (pad_write) begin
          pad_left <= pad_left - 1'b1;
          {pr, pc} <= pad_next;
          if (pad_new_row) prow_base <= next_row_base;
          if (pad_left == 1) begin
            if (q_ys == 0) busy <= 1'b0;
            else posted <= 1'b1;
          end
        end
        if (req_valid && req_grant) begin
          rq_addr <= cur_addr + (burst << LOG_B);
          rq_rem  <= cur_rem - burst;
          if (new_row) begin
            rq_row_elem  <= rq_row_elem + {16'b0, q_stride};
            rq_rows_left <= rq_rows_left - 1'b1;
          end
        end
        if (!req_valid && posted) posted <= 1'b0;
        if (stage) begin
          wq_valid <= 1'b1;
          wq_idx <= didx;
          wq_count <= n[7:0];
          wq_data <= edata;
          wq_last <= elems_left == {16'b0, n};
          elems_left <= elems_left - {16'b0, n};
          d_first <= row_end_now;
          if (row_end_now) begin
            dx_left <= q_xs;
            d_row_elem <= d_row_elem + {16'b0, q_stride};
            didx <= didx + n[LOG_DEPTH-1:0] + row_gap[LOG_DEPTH-1:0];
          end else begin
            dx_left <= dx_left - n;
            didx <= didx + n[LOG_DEPTH-1:0];
          end
        end
        if (wq_valid && wq_last) busy <= 1'b0;
      end
    end
  end
endmodule
`default_nettype wire
