// gemm_core: the BATCH x BLOCK_IN x BLOCK_OUT matrix-multiply datapath of the compute unit.
// For every batch row b and output channel oc:
//   acc_out[b][oc] = reset ? 0 : acc_in[b][oc] + sum_k inp[b][k] * wgt[oc][k]
// INP_WIDTH x WGT_WIDTH signed products, an exact dot product, and a wrapping accumulate at
// ACC_WIDTH bits (mod 2^ACC_WIDTH, the same as fsim: docs/element_widths.md). Lane layouts are
// those of the SRAM tiles, lanes packed LSB first: inp lane b*BLOCK_IN+k, wgt lane
// oc*BLOCK_IN+k, acc lane b*BLOCK_OUT+oc. Purely combinational; the compute unit registers its
// operands and result.
//
// Two implementations of the same function, both unit-tested against the reference:
//  * default (simulation, every width): one INP_WIDTH x WGT_WIDTH product per MAC;
//  * VTA_GEMM_PACKED (synthesis, scripts/synth.sh; int8 only): two products share one multiplier (one
//    DSP48 on 7-series FPGAs), halving the DSPs of the core. For output channels
//    oc = 2j and 2j+1, M = (w[2j+1] * 2^16 + w[2j]) * x (a 25 x 8 bit signed product) holds
//    w[2j] * x in its low 16 bits (a signed value in [-16256, 16384]) and w[2j+1] * x in bits
//    31:16, off by one when the low product is negative.
// Dot products are summed at their exact width (product bits + log2 BLOCK_IN + 1, or the acc
// width if wider) and only then added to the accumulator, keeping its low ACC_WIDTH bits.
`default_nettype none
`include "vta_params.vh"
module gemm_core (
    input  wire                                                    reset,
    input  wire [`VTA_BATCH*`VTA_BLOCK_IN*`VTA_INP_WIDTH-1:0]      inp,
    input  wire [`VTA_BLOCK_OUT*`VTA_BLOCK_IN*`VTA_WGT_WIDTH-1:0]  wgt,
    input  wire [`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH-1:0]     acc_in,
    output reg  [`VTA_BATCH*`VTA_BLOCK_OUT*`VTA_ACC_WIDTH-1:0]     acc_out
);
  localparam integer AW = `VTA_ACC_WIDTH;
  localparam integer IW = `VTA_INP_WIDTH;
  localparam integer WW = `VTA_WGT_WIDTH;
`ifdef VTA_GEMM_PACKED
  // Two products per multiplier hold only int8 x int8 -> int32; other widths stay generic.
  localparam integer kPacked = (IW == 8 && WW == 8 && AW == 32) ? 1 : 0;
`else
  localparam integer kPacked = 0;
`endif
  generate
    if (kPacked == 0) begin : g_generic
      localparam integer PW = IW + WW;  // exact width of a product
      localparam integer XW = PW + 1 + $clog2(`VTA_BLOCK_IN);  // exact width of a dot product
      localparam integer DW = XW > AW ? XW : AW;  // the sum's width: at least the accumulator's
      integer b, oc, k;
      reg signed [IW-1:0] x;
      reg signed [WW-1:0] w;
      reg signed [PW-1:0] p;
      reg signed [DW-1:0] dot;

      always @* begin
        acc_out = {`VTA_BATCH*`VTA_BLOCK_OUT*AW{1'b0}};
        for (b = 0; b < `VTA_BATCH; b = b + 1) begin
          for (oc = 0; oc < `VTA_BLOCK_OUT; oc = oc + 1) begin
            dot = {DW{1'b0}};
            for (k = 0; k < `VTA_BLOCK_IN; k = k + 1) begin
              x = inp[(b*`VTA_BLOCK_IN+k)*IW+:IW];
              w = wgt[(oc*`VTA_BLOCK_IN+k)*WW+:WW];
              p = x * w;
              dot = dot + {{(DW - PW) {p[PW-1]}}, p};
            end
            if (!reset) begin
              acc_out[(b*`VTA_BLOCK_OUT+oc)*AW+:AW] =
                  acc_in[(b*`VTA_BLOCK_OUT+oc)*AW+:AW] + dot[AW-1:0];
            end
          end
        end
      end
    end else begin : g_packed
      localparam integer DW = 17 + $clog2(`VTA_BLOCK_IN);  // exact width of an int8 dot product
      integer b, j, k;
      reg signed [7:0] x, w_lo, w_hi;
      reg signed [24:0] packed_w;
      reg signed [31:0] m;  // |M| < 2^31: the 32-bit product is exact
      reg signed [15:0] p_lo;
      reg signed [15:0] p_hi;
      reg signed [DW-1:0] dot_lo, dot_hi;
      reg [AW-1:0] a_lo, a_hi;

      always @* begin
        acc_out = {`VTA_BATCH*`VTA_BLOCK_OUT*AW{1'b0}};
        for (b = 0; b < `VTA_BATCH; b = b + 1) begin
          for (j = 0; j < `VTA_BLOCK_OUT / 2; j = j + 1) begin
            dot_lo = {DW{1'b0}};
            dot_hi = {DW{1'b0}};
            for (k = 0; k < `VTA_BLOCK_IN; k = k + 1) begin
              x = inp[(b*`VTA_BLOCK_IN+k)*8+:8];
              w_lo = wgt[((2*j)*`VTA_BLOCK_IN+k)*8+:8];
              w_hi = wgt[((2*j+1)*`VTA_BLOCK_IN+k)*8+:8];
              packed_w = {w_hi[7], w_hi, 16'b0} + {{17{w_lo[7]}}, w_lo};
              m = packed_w * x;
              p_lo = m[15:0];
              p_hi = m[31:16] + {15'b0, p_lo[15]};
              dot_lo = dot_lo + {{(DW - 16) {p_lo[15]}}, p_lo};
              dot_hi = dot_hi + {{(DW - 16) {p_hi[15]}}, p_hi};
            end
            a_lo = acc_in[(b*`VTA_BLOCK_OUT+2*j)*AW+:AW] + {{(AW - DW) {dot_lo[DW-1]}}, dot_lo};
            a_hi = acc_in[(b*`VTA_BLOCK_OUT+2*j+1)*AW+:AW] + {{(AW - DW) {dot_hi[DW-1]}}, dot_hi};
            if (!reset) begin
              acc_out[(b*`VTA_BLOCK_OUT+2*j)*AW+:AW] = a_lo;
              acc_out[(b*`VTA_BLOCK_OUT+2*j+1)*AW+:AW] = a_hi;
            end
          end
        end
      end
    end
  endgenerate
endmodule
`default_nettype wire
