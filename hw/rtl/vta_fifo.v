// vta_fifo: first-word-fall-through FIFO, the per-unit instruction queues and the fetch
// chunk buffer. `head` is valid whenever `count` is non-zero; push and pop may coincide.
`default_nettype none
module vta_fifo #(
    parameter integer WIDTH = 8,
    parameter integer DEPTH = 4,       // entries (any value >= 1)
    parameter integer LOG_DEPTH = 2,   // address bits, 2^LOG_DEPTH >= DEPTH
    parameter integer COUNT_BITS = 3   // bits of count, 2^COUNT_BITS > DEPTH
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  push,
    input  wire [     WIDTH-1:0] push_data,
    input  wire                  pop,
    output wire [     WIDTH-1:0] head,
    output reg  [COUNT_BITS-1:0] count,
    output wire                  full,
    output wire                  empty
);
  reg [WIDTH-1:0] mem[(1<<LOG_DEPTH)-1:0];
  reg [LOG_DEPTH-1:0] rd_ptr, wr_ptr;
  localparam [COUNT_BITS-1:0] kDepth = DEPTH[COUNT_BITS-1:0];
  localparam [LOG_DEPTH-1:0] kLast = DEPTH[LOG_DEPTH-1:0] - 1'b1;

  assign head  = mem[rd_ptr];
  assign full  = count == kDepth;
  assign empty = count == 0;

  always @(posedge clk) begin
    if (push) mem[wr_ptr] <= push_data;
  end

  always @(posedge clk) begin
    if (rst) begin
      rd_ptr <= 0;
      wr_ptr <= 0;
      count  <= 0;
    end else begin
      if (push) wr_ptr <= (wr_ptr == kLast) ? {LOG_DEPTH{1'b0}} : wr_ptr + 1'b1;
      if (pop) rd_ptr <= (rd_ptr == kLast) ? {LOG_DEPTH{1'b0}} : rd_ptr + 1'b1;
      if (push && !pop) count <= count + 1'b1;
      else if (pop && !push) count <= count - 1'b1;
    end
  end
endmodule
`default_nettype wire
