// vta_sram: one on-chip SRAM of the VTA core (uop, inp, wgt, acc or out buffer).
// One write port and one read port with a registered (synchronous) read, the shape every
// FPGA block RAM has, so Yosys maps it to BRAM. A read of the address written in the same
// cycle returns the old contents (read-first); the compute unit bypasses that case itself.
`default_nettype none
module vta_sram #(
    parameter integer WIDTH = 8,     // bits per element
    parameter integer LOG_DEPTH = 4  // address bits; depth = 2^LOG_DEPTH elements
) (
    input  wire                 clk,
    input  wire                 wr_en,
    input  wire [LOG_DEPTH-1:0] wr_idx,
    input  wire [    WIDTH-1:0] wr_data,
    input  wire                 rd_en,
    input  wire [LOG_DEPTH-1:0] rd_idx,
    output reg  [    WIDTH-1:0] rd_data
);
  reg [WIDTH-1:0] mem[(1<<LOG_DEPTH)-1:0];

  always @(posedge clk) begin
    if (wr_en) mem[wr_idx] <= wr_data;
    if (rd_en) rd_data <= mem[rd_idx];
  end
endmodule
`default_nettype wire
