#include "vta/compiler/scheduling/load_split.h"

#include <algorithm>

namespace vta::compiler {

namespace {

// Pieces of one row of a load without padding, each of at most `max_elems` elements.
void split_row(const Load2D& row, uint32_t max_elems, std::vector<Load2D>& out) {
  for (uint32_t x = 0; x < row.x_size; x += max_elems) {
    Load2D piece = row;
    piece.x_size = std::min(max_elems, row.x_size - x);
    piece.x_stride = piece.x_size;
    piece.src_elem_offset = row.src_elem_offset + x;
    piece.sram_index = row.sram_index + x;
    out.push_back(piece);
  }
}

}  // namespace

std::vector<Load2D> split_load(const Load2D& load, uint32_t elem_bytes, uint32_t max_bytes) {
  const uint64_t row_bytes = uint64_t(load.x_size) * elem_bytes;
  if (max_bytes == 0 || load.y_size == 0 || row_bytes * load.y_size <= max_bytes) {
    return {load};
  }
  const uint32_t width = load.x_pad_before + load.x_size + load.x_pad_after;  // SRAM row
  const uint32_t rows_per_piece = uint32_t(std::max<uint64_t>(1, max_bytes / row_bytes));
  // A row is cut only in a load without padding (padding rows are as wide as their piece).
  const bool cut_rows = row_bytes > max_bytes && load.x_pad_before == 0 && load.x_pad_after == 0 &&
                        load.y_pad_before == 0 && load.y_pad_after == 0;
  std::vector<Load2D> out;
  for (uint32_t y = 0; y < load.y_size; y += rows_per_piece) {
    Load2D piece = load;
    piece.y_size = std::min(rows_per_piece, load.y_size - y);
    piece.src_elem_offset = load.src_elem_offset + y * load.x_stride;
    // The first piece keeps the rows of zeros above the window, the last those below it.
    piece.y_pad_before = y == 0 ? load.y_pad_before : 0;
    piece.y_pad_after = y + piece.y_size == load.y_size ? load.y_pad_after : 0;
    piece.sram_index = load.sram_index + (y == 0 ? 0 : (load.y_pad_before + y) * width);
    if (cut_rows) {
      split_row(piece, uint32_t(std::max<uint64_t>(1, max_bytes / elem_bytes)), out);
    } else {
      out.push_back(piece);
    }
  }
  return out;
}

}  // namespace vta::compiler
