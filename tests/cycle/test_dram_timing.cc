// The memory-port timing class shared by the cycle and rtl backends, checked against numbers
// worked out by hand from sim/README.md section 2.
#include <catch2/catch.hpp>

#include "cycle_test_util.h"
#include "vta/sim/cycle/dram_timing.h"

using namespace vta;
using namespace vta::cycle;
using namespace vta::cycletest;

TEST_CASE("dram timing: burst split by length and boundary", "[cycle]") {
  // de10nano: 8-byte beats, 16-beat bursts, 128-byte boundary.
  const HwConfig cfg = HwConfig::from_file(config_path("de10nano"));
  std::vector<Burst> b;
  // [0x1030, 0x1130): 0x1030..0x1080 (10 beats, up to the boundary), then 0x1080..0x1100
  // (16 beats), then 0x1100..0x1130 (6 beats).
  split_bursts(cfg, 0x1030, 0x1130, b);
  REQUIRE(b.size() == 3);
  CHECK(b[0].addr == 0x1030);
  CHECK(b[0].bytes == 0x50);
  CHECK(b[0].beats == 10);
  CHECK(b[1].addr == 0x1080);
  CHECK(b[1].beats == 16);
  CHECK(b[2].addr == 0x1100);
  CHECK(b[2].bytes == 0x30);
  CHECK(b[2].beats == 6);
  // A 4-byte range inside one beat, unaligned: one burst of one beat.
  b.clear();
  split_bursts(cfg, 0x2004, 0x2008, b);
  REQUIRE(b.size() == 1);
  CHECK(b[0].beats == 1);
  CHECK(b[0].bytes == 4);
  // Straddling two beats: 2 beats.
  b.clear();
  split_bursts(cfg, 0x2006, 0x200a, b);
  REQUIRE(b.size() == 1);
  CHECK(b[0].beats == 2);
  // Empty range: nothing.
  b.clear();
  split_bursts(cfg, 0x3000, 0x3000, b);
  CHECK(b.empty());
}

TEST_CASE("dram timing: split agrees with a beat-by-beat walk on random ranges", "[cycle]") {
  for (const char* preset : {"pynq", "de10nano", "zcu104"}) {
    const HwConfig cfg = HwConfig::from_file(config_path(preset));
    uint64_t x = 12345;
    for (int k = 0; k < 500; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const uint64_t a = (x >> 20) % 100000;
      const uint64_t len = 1 + (x >> 40) % 9000;
      std::vector<Burst> b;
      split_bursts(cfg, a, a + len, b);
      std::vector<uint64_t> beats;
      for (const Burst& br : b) {
        beats.push_back(br.beats);
      }
      INFO(preset << " [" << a << ", " << a + len << ")");
      CHECK(beats == ref_burst_beats(cfg, a, a + len));
      uint64_t bytes = 0;
      for (const Burst& br : b) {
        bytes += br.bytes;
      }
      CHECK(bytes == len);
    }
  }
}

TEST_CASE("dram timing: read and write channels", "[cycle]") {
  // Lr 7, Lw 5, 2 cycles per beat.
  const HwConfig cfg = config_with("pynq", {{"DRAM_READ_LATENCY_CYCLES", 7},
                                            {"DRAM_WRITE_LATENCY_CYCLES", 5},
                                            {"DRAM_CYCLES_PER_BEAT", 2}});
  DramTiming t(cfg);
  t.reset(100);
  // Granted 100, 3 beats: first max(107, 100) = 107, beats 107, 109, 111; free from 113.
  ReadBeats r = t.read(100, 3);
  CHECK(r.first == 107);
  CHECK(r.last == 111);
  CHECK(r.interval == 2);
  CHECK(t.read_free() == 113);
  // Granted 101 (latency would give 108) waits for the channel: 113, 115.
  r = t.read(101, 2);
  CHECK(r.first == 113);
  CHECK(r.last == 115);
  // Much later: latency bound again.
  r = t.read(200, 1);
  CHECK(r.first == 207);
  CHECK(r.last == 207);
  // Writes: granted 100, 2 beats: first max(101, 100) = 101, last 103, response 108.
  WriteBeats w = t.write(100, 2);
  CHECK(w.first == 101);
  CHECK(w.last == 103);
  CHECK(w.response == 108);
  // Next burst granted 101: channel free from 105 -> 105, 107; response 112.
  w = t.write(101, 2);
  CHECK(w.first == 105);
  CHECK(w.response == 112);
  // Reset: both channels idle from the given cycle.
  t.reset(1000);
  CHECK(t.read(1000, 1).first == 1007);
  CHECK(t.write(1000, 1).first == 1001);
}
