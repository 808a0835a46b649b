// vta_dep_queue: one dependency-token queue (l2g, g2l, s2g or g2s). Tokens carry no data, so
// the queue is a counter of 0..DEP_QUEUE_DEPTH tokens. The producer may push only when `full`
// is low and the consumer may pop only when `avail` is high; the units check both before they
// start an instruction. A push and a pop in the same cycle cancel.
`default_nettype none
`include "vta_params.vh"
module vta_dep_queue (
    input  wire                          clk,
    input  wire                          rst,
    input  wire                          push,
    input  wire                          pop,
    output reg  [`VTA_DEP_COUNT_BITS-1:0] count,
    output wire                          avail,
    output wire                          full
);
  localparam [`VTA_DEP_COUNT_BITS-1:0] kDepth = `VTA_DEP_QUEUE_DEPTH;
  assign avail = count != 0;
  assign full  = count == kDepth;

  always @(posedge clk) begin
    if (rst) count <= 0;
    else if (push && !pop) count <= count + 1'b1;
    else if (pop && !push) count <= count - 1'b1;
  end
endmodule
`default_nettype wire
