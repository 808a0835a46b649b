// mem_arbiter: the read side of the core's memory interface (sim/README.md section 2). Five
// read clients, 0 fetch, 1 uop, 2 inp, 3 wgt, 4 acc, each present one posted burst at a time
// (a registered request, so it is eligible the cycle after it was posted); in every cycle the
// lowest-numbered eligible client is granted (fixed priority, whole bursts). The memory model
// accepts the granted burst in the same cycle (no back-pressure) and returns its beats later,
// tagged with the client number; the client always takes them. The store unit is the only
// write client and is wired straight through by the top level.
`default_nettype none
module mem_arbiter (
    // clients (client i at bit i, address [32*i +: 32], beats [9*i +: 9])
    input  wire [   4:0] req_valid,
    output wire [   4:0] req_grant,
    input  wire [ 159:0] req_addr,
    input  wire [  44:0] req_beats,
    output wire [   4:0] data_valid,
    // memory side
    output wire          mem_req_valid,
    input  wire          mem_req_ready,
    output wire [  31:0] mem_req_addr,
    output wire [   8:0] mem_req_beats,
    output wire [   2:0] mem_req_tag,
    input  wire          mem_data_valid,
    input  wire [   2:0] mem_data_tag
);
  wire [2:0] grant = req_valid[0] ? 3'd0 : req_valid[1] ? 3'd1 : req_valid[2] ? 3'd2 :
      req_valid[3] ? 3'd3 : 3'd4;
  assign mem_req_valid = |req_valid;
  assign mem_req_tag = grant;
  assign mem_req_addr = req_addr[32*grant+:32];
  assign mem_req_beats = req_beats[9*grant+:9];
  assign req_grant = (mem_req_valid && mem_req_ready) ? (5'b1 << grant) : 5'b0;
  assign data_valid = mem_data_valid ? (5'b1 << mem_data_tag) : 5'b0;
endmodule
`default_nettype wire
