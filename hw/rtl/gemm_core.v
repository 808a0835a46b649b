// gemm_core: the BATCH x BLOCK_IN x BLOCK_OUT matrix-multiply datapath of the compute unit.
// For every batch row b and output channel oc:
//   acc_out[b][oc] = reset ? 0 : acc_in[b][oc] + sum_k inp[b][k] * wgt[oc][k]
// int8 x int8 products, an exact dot product, and a wrapping 32-bit accumulate (mod 2^32,
// the same as fsim's int32 add). Lane layouts are those of the SRAM tiles: inp byte
// b*BLOCK_IN+k, wgt byte oc*BLOCK_IN+k, acc lane b*BLOCK_OUT+oc. Purely combinational; the
// compute unit registers its operands and result.
`default_nettype none
`include "vta_params.vh"
module gemm_core (
    input  wire                                                    reset,
    input  wire [`VTA_BATCH*`VTA_BLOCK_IN*`VTA_INP_WIDTH-1:0]      inp,
    input  wire [`VTA_BLOCK_OUT*`VTA_BLOCK_IN*`VTA_WGT_WIDTH-1:0]  wgt,
    input  wire [`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH-1:0]     acc_in,
    output reg  [`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH-1:0]     acc_out
);
  integer b, oc, k;
  reg [`VTA_ACC_WIDTH-1:0] sum;
  reg signed [`VTA_INP_WIDTH-1:0] x;
  reg signed [`VTA_WGT_WIDTH-1:0] w;
  reg signed [`VTA_ACC_WIDTH-1:0] prod;

  always @* begin
    acc_out = {`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH{1'b0}};
    for (b = 0; b < `VTA_BATCH; b = b + 1) begin
      for (oc = 0; oc < `VTA_BLOCK_OUT; oc = oc + 1) begin
        sum = acc_in[(b*`VTA_BLOCK_OUT+oc)*`VTA_ACC_WIDTH+:`VTA_ACC_WIDTH];
        for (k = 0; k < `VTA_BLOCK_IN; k = k + 1) begin
          x = inp[(b*`VTA_BLOCK_IN+k)*`VTA_INP_WIDTH+:`VTA_INP_WIDTH];
          w = wgt[(oc*`VTA_BLOCK_IN+k)*`VTA_WGT_WIDTH+:`VTA_WGT_WIDTH];
          prod = {{(`VTA_ACC_WIDTH - `VTA_INP_WIDTH) {x[`VTA_INP_WIDTH-1]}}, x} *
                 {{(`VTA_ACC_WIDTH - `VTA_WGT_WIDTH) {w[`VTA_WGT_WIDTH-1]}}, w};
          sum = sum + prod;
        end
        if (!reset) acc_out[(b*`VTA_BLOCK_OUT+oc)*`VTA_ACC_WIDTH+:`VTA_ACC_WIDTH] = sum;
      end
    end
  end
endmodule
`default_nettype wire
