// The bytes between a parent and its worker processes (process_pool.h): frames of a kind byte,
// a 64-bit length (host byte order: both ends are the same program) and that many bytes, so a
// payload may hold any bytes (a LayerRun's binary encoding, a line of JSON) and the reader knows
// where it ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace vta::compiler {

struct PipeFrame {
  uint8_t kind = 0;
  std::string bytes;
};

// A longer frame is not one: the stream is broken (checked before anything is allocated).
constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 32;

// Writes the whole frame, retrying short writes and EINTR; false when the pipe is closed.
bool write_frame(int fd, const PipeFrame& frame);
// Reads one whole frame, blocking (a worker waiting for its next job); false at end of file, on
// a read error or on a header longer than kMaxFrameBytes.
bool read_frame(int fd, PipeFrame& frame);

// Frames out of bytes as they arrive: the parent reads what poll() says is there and never
// blocks on a worker that is slow or has died halfway through a frame.
class FrameReader {
 public:
  void append(const char* data, size_t n);
  // The next whole frame, if it has arrived. Throws vta::Error when a header announces more than
  // kMaxFrameBytes.
  std::optional<PipeFrame> next();
  // Bytes of a frame not yet complete (a worker that dies now dies halfway through one).
  bool has_partial_frame() const { return m_pos < m_buffer.size(); }

 private:
  std::string m_buffer;
  size_t m_pos = 0;  // start of the first frame not yet returned
};

}  // namespace vta::compiler
