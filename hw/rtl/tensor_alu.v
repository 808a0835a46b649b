// tensor_alu: the vector ALU of the compute unit, one operation on all BATCH*BLOCK_OUT
// ACC_WIDTH-bit lanes (16 or 32): out = a op b, with b either the src tile or the sign-extended
// 16-bit immediate. Operations of ISA 0.0.2: MIN, MAX (signed), ADD, MUL (wrapping at the lane
// width), SHR (arithmetic right shift by b; b < 0 shifts left by -b, as fsim's C semantics;
// shifting by the lane width or more gives the sign fill to the right and 0 to the left).
// Combinational.
`default_nettype none
`include "vta_params.vh"
module tensor_alu (
    input  wire [                                        2:0] op,
    input  wire                                               use_imm,
    input  wire [                                       15:0] imm,
    input  wire [`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH-1:0] a,
    input  wire [`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH-1:0] b,
    output reg  [`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH-1:0] out
);
  localparam integer kLanes = `VTA_BATCH * `VTA_BLOCK_OUT;
  localparam integer W = `VTA_ACC_WIDTH;
  integer i;
  reg signed [W-1:0] x, y, r;
  reg [W-1:0] neg_y;

  always @* begin
    out = {kLanes * W{1'b0}};
    for (i = 0; i < kLanes; i = i + 1) begin
      x = a[i*W+:W];
      y = use_imm ? {{(W - 15) {imm[15]}}, imm[14:0]} : b[i*W+:W];  // W >= 16: sign-extended
      neg_y = -y;
      case (op)
        3'd0: r = (x < y) ? x : y;
        3'd1: r = (x > y) ? x : y;
        3'd2: r = x + y;
        3'd3: r = y[W-1] ? (x << neg_y) : (x >>> y);
        // unsigned multiply: the same low W bits as the signed one, without the signed
        // overflow a C++ model of $signed * $signed has (undefined behaviour in Verilator's code)
        3'd4: r = $unsigned(x) * $unsigned(y);
        default: r = x;
      endcase
      out[i*W+:W] = r;
    end
  end
endmodule
`default_nettype wire
