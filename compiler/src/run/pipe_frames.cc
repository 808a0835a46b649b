#include "vta/compiler/run/pipe_frames.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

constexpr size_t kHeaderBytes = 1 + sizeof(uint64_t);  // kind, length

// Whole-buffer pipe I/O with `op` (::read or ::write), retried on EINTR and short transfers;
// false at end of file or on an error.
template <typename Byte, typename Op>
bool transfer_all(int fd, Byte* p, size_t n, Op op) {
  while (n > 0) {
    const ssize_t k = op(fd, p, n);
    if (k < 0 && errno == EINTR) {
      continue;
    }
    if (k <= 0) {
      return false;
    }
    p += k, n -= size_t(k);
  }
  return true;
}

uint64_t header_length(const char* header) {
  uint64_t length = 0;
  std::memcpy(&length, header + 1, sizeof length);
  return length;
}

}  // namespace

bool write_frame(int fd, const PipeFrame& frame) {
  std::string data(kHeaderBytes, '\0');
  data[0] = static_cast<char>(frame.kind);
  const uint64_t length = frame.bytes.size();
  std::memcpy(data.data() + 1, &length, sizeof length);
  data += frame.bytes;  // one write for small frames: no header without its payload in the pipe
  return transfer_all(fd, data.data(), data.size(), ::write);
}

bool read_frame(int fd, PipeFrame& frame) {
  char header[kHeaderBytes];
  if (!transfer_all(fd, header, kHeaderBytes, ::read)) {
    return false;
  }
  const uint64_t length = header_length(header);
  if (length > kMaxFrameBytes) {
    return false;
  }
  frame.kind = static_cast<uint8_t>(header[0]);
  frame.bytes.resize(length);
  return transfer_all(fd, frame.bytes.data(), frame.bytes.size(), ::read);
}

void FrameReader::append(const char* data, size_t n) {
  m_buffer.erase(0, m_pos);  // the frames returned so far
  m_pos = 0;
  m_buffer.append(data, n);
}

std::optional<PipeFrame> FrameReader::next() {
  const size_t available = m_buffer.size() - m_pos;
  if (available < kHeaderBytes) {
    return std::nullopt;
  }
  const char* header = m_buffer.data() + m_pos;
  const uint64_t length = header_length(header);
  if (length > kMaxFrameBytes) {
    throw Error(fmt::format("a frame announces {} bytes, more than the {} a frame may hold", length,
                            kMaxFrameBytes));
  }
  if (available - kHeaderBytes < length) {
    return std::nullopt;
  }
  PipeFrame frame;
  frame.kind = static_cast<uint8_t>(header[0]);
  frame.bytes = m_buffer.substr(m_pos + kHeaderBytes, length);
  m_pos += kHeaderBytes + length;
  return frame;
}

}  // namespace vta::compiler
