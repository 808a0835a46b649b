// vta_sram_lanes: an SRAM of elements narrower than a bus beat (R = 2^LOG_R elements per beat),
// built from R vta_sram banks (bank k holds the indices i with i mod R = k, at row i / R), so
// that a DMA writes and the store reads the R consecutive elements of one beat in one cycle,
// which the timing contract needs (sim/README.md section 4: the SRAM port is as wide as a beat).
// Write: element j of wr_data (j < wr_count) goes to index wr_idx + j. Read (registered, like
// vta_sram): lane j of rd_data is the element at rd_idx + j, for j = 0..R-1 (indices wrap at the
// depth); a single-element reader uses lane 0. With LOG_R = 0 this is exactly one vta_sram.
`default_nettype none
module vta_sram_lanes #(
    parameter integer WIDTH = 8,      // bits per element
    parameter integer LOG_DEPTH = 4,  // address bits; depth = 2^LOG_DEPTH elements
    parameter integer LOG_R = 0       // log2 elements per beat (<= LOG_DEPTH)
) (
    input  wire                           clk,
    input  wire                           wr_en,
    input  wire [          LOG_DEPTH-1:0] wr_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [                    7:0] wr_count,  // 1..R (ignored when R = 1)
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [(WIDTH<<LOG_R)-1:0]      wr_data,
    input  wire                           rd_en,
    input  wire [          LOG_DEPTH-1:0] rd_idx,
    output wire [(WIDTH<<LOG_R)-1:0]      rd_data
);
  generate
    if (LOG_R == 0) begin : g_one
      vta_sram #(
          .WIDTH(WIDTH),
          .LOG_DEPTH(LOG_DEPTH)
      ) u_sram (
          .clk(clk),
          .wr_en(wr_en),
          .wr_idx(wr_idx),
          .wr_data(wr_data),
          .rd_en(rd_en),
          .rd_idx(rd_idx),
          .rd_data(rd_data)
      );
    end else begin : g_banks
      localparam integer R = 1 << LOG_R;
      wire [WIDTH-1:0] bank_rd[0:R-1];
      reg [LOG_R-1:0] rd_lane0_q;  // bank of lane 0 of the registered read
      always @(posedge clk) if (rd_en) rd_lane0_q <= rd_idx[LOG_R-1:0];
      genvar k;
      for (k = 0; k < R; k = k + 1) begin : g_bank
        localparam [LOG_R-1:0] KB = k;
        // the write element and the read lane that land in bank k
        wire [LOG_R-1:0] wj = KB - wr_idx[LOG_R-1:0];
        wire [LOG_R-1:0] rj = KB - rd_idx[LOG_R-1:0];
        /* verilator lint_off UNUSEDSIGNAL */
        wire [LOG_DEPTH-1:0] widx = wr_idx + {{(LOG_DEPTH - LOG_R) {1'b0}}, wj};  // low bits = k
        wire [LOG_DEPTH-1:0] ridx = rd_idx + {{(LOG_DEPTH - LOG_R) {1'b0}}, rj};
        /* verilator lint_on UNUSEDSIGNAL */
        vta_sram #(
            .WIDTH(WIDTH),
            .LOG_DEPTH(LOG_DEPTH - LOG_R)
        ) u_bank (
            .clk(clk),
            .wr_en(wr_en && {{(8 - LOG_R) {1'b0}}, wj} < wr_count),
            .wr_idx(widx[LOG_DEPTH-1:LOG_R]),
            .wr_data(wr_data[wj*WIDTH+:WIDTH]),
            .rd_en(rd_en),
            .rd_idx(ridx[LOG_DEPTH-1:LOG_R]),
            .rd_data(bank_rd[k])
        );
        // lane k of the read is in bank (lane0 + k) mod R
        wire [LOG_R-1:0] src = rd_lane0_q + KB;
        assign rd_data[k*WIDTH+:WIDTH] = bank_rd[src];
      end
    end
  endgenerate
endmodule
`default_nettype wire
