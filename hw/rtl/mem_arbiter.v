// mem_arbiter: the read side of the core's memory interface (sim/README.md section 2). The
// VTA_NUM_READ_CLIENTS read clients are numbered as the timing contract's ReadClient
// (vta_params.vh: VTA_CLIENT_FETCH, _UOP, _INP, _WGT, _ACC); each presents one posted burst at a
// time (a registered request, so it is eligible the cycle after it was posted); in every cycle
// the lowest-numbered eligible client is granted (fixed priority, whole bursts). The memory
// model accepts the granted burst in the same cycle (no back-pressure) and returns its beats
// later, tagged with the client number; the client always takes them. The store unit is the
// only write client and is wired straight through by the top level.
`default_nettype none
`include "vta_params.vh"
module mem_arbiter (
    // clients (client i at bit i, address [32*i +: 32], beats [9*i +: 9])
    input  wire [  `VTA_NUM_READ_CLIENTS-1:0] req_valid,
    output wire [  `VTA_NUM_READ_CLIENTS-1:0] req_grant,
    input  wire [`VTA_NUM_READ_CLIENTS*32-1:0] req_addr,
    input  wire [ `VTA_NUM_READ_CLIENTS*9-1:0] req_beats,
    output wire [  `VTA_NUM_READ_CLIENTS-1:0] data_valid,
    // memory side
    output wire                               mem_req_valid,
    input  wire                               mem_req_ready,
    output wire [                       31:0] mem_req_addr,
    output wire [                        8:0] mem_req_beats,
    output wire [     `VTA_READ_TAG_BITS-1:0] mem_req_tag,
    input  wire                               mem_data_valid,
    input  wire [     `VTA_READ_TAG_BITS-1:0] mem_data_tag
);
  localparam integer N = `VTA_NUM_READ_CLIENTS;
  localparam integer TW = `VTA_READ_TAG_BITS;
  localparam integer kLast = N - 1;
  localparam [N-1:0] kOne = {{(N - 1) {1'b0}}, 1'b1};

  // the lowest-numbered requesting client (the last one when none requests)
  reg [TW-1:0] grant;
  integer i;
  always @* begin
    grant = kLast[TW-1:0];
    for (i = kLast; i >= 0; i = i - 1) begin
      if (req_valid[i]) grant = i[TW-1:0];
    end
  end

  assign mem_req_valid = |req_valid;
  assign mem_req_tag = grant;
  assign mem_req_addr = req_addr[32*grant+:32];
  assign mem_req_beats = req_beats[9*grant+:9];
  assign req_grant = (mem_req_valid && mem_req_ready) ? (kOne << grant) : {N{1'b0}};
  assign data_valid = mem_data_valid ? (kOne << mem_data_tag) : {N{1'b0}};
endmodule
`default_nettype wire
