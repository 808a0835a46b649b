// The frames between the parent and its worker processes: through a real pipe, and reassembled
// from bytes that arrive in pieces of any size (seeded random splits; the seed is printed).
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "vta/compiler/run/pipe_frames.h"
#include "vta/sim/error.h"

using namespace vta::compiler;

namespace {

// The bytes of a frame as written by hand: kind, 8-byte length (host order), payload.
std::string encoded(uint8_t kind, const std::string& bytes) {
  std::string out(1, char(kind));
  const uint64_t n = bytes.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  return out + bytes;
}

}  // namespace

TEST_CASE("frames through a pipe: kind and bytes (zero bytes included), then end of file",
          "[workers]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::vector<PipeFrame> frames = {
      {0, ""}, {1, std::string("a\0b\n", 4)}, {2, std::string(200'000, 'x')}};
  std::thread writer([&] {  // 200 kB: more than the pipe holds, so the reader must read on
    for (const PipeFrame& f : frames) {
      CHECK(write_frame(fds[1], f));
    }
    ::close(fds[1]);
  });
  for (const PipeFrame& f : frames) {
    PipeFrame got;
    REQUIRE(read_frame(fds[0], got));
    CHECK(got.kind == f.kind);
    CHECK(got.bytes == f.bytes);
  }
  PipeFrame none;
  CHECK_FALSE(read_frame(fds[0], none));
  writer.join();
  ::close(fds[0]);
}

TEST_CASE("a frame's bytes on the wire are its kind, its 64-bit length and its payload",
          "[workers]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(write_frame(fds[1], PipeFrame{7, "hello"}));
  ::close(fds[1]);
  char buf[64];
  const ssize_t n = ::read(fds[0], buf, sizeof buf);
  ::close(fds[0]);
  REQUIRE(n == 14);
  CHECK(std::string(buf, size_t(n)) == encoded(7, "hello"));
}

TEST_CASE("the frame reader reassembles frames from pieces of any size", "[workers]") {
  const unsigned seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::vector<PipeFrame> sent;
  std::string wire;
  for (int i = 0; i < 200; ++i) {
    PipeFrame f{uint8_t(rng() % 3), std::string(rng() % 1000, '\0')};
    for (char& c : f.bytes) {
      c = char(rng());
    }
    wire += encoded(f.kind, f.bytes);
    sent.push_back(std::move(f));
  }
  FrameReader reader;
  std::vector<PipeFrame> got;
  for (size_t at = 0; at < wire.size();) {
    const size_t piece = std::min<size_t>(wire.size() - at, rng() % 64);
    reader.append(wire.data() + at, piece);
    at += piece;
    while (std::optional<PipeFrame> f = reader.next()) {
      got.push_back(std::move(*f));
    }
  }
  CHECK_FALSE(reader.has_partial_frame());
  REQUIRE(got.size() == sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    CHECK(got[i].kind == sent[i].kind);
    CHECK(got[i].bytes == sent[i].bytes);
  }
  reader.append("\x01\x05", 2);  // a header cut short: a partial frame, no frame
  CHECK_FALSE(reader.next());
  CHECK(reader.has_partial_frame());
}

TEST_CASE("a header announcing more than a frame may hold is an error, not an allocation",
          "[workers]") {
  std::string header(1, '\1');
  const uint64_t huge = kMaxFrameBytes + 1;
  header.append(reinterpret_cast<const char*>(&huge), sizeof huge);
  FrameReader reader;
  reader.append(header.data(), header.size());
  CHECK_THROWS_WITH(reader.next(), Catch::Contains("a frame announces 4294967297 bytes"));
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], header.data(), header.size()) == ssize_t(header.size()));
  ::close(fds[1]);
  PipeFrame f;
  CHECK_FALSE(read_frame(fds[0], f));
  ::close(fds[0]);
}
