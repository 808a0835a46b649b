// The process's resident memory, for the tests and benchmarks that bound growth per call.
#pragma once

#include <fstream>
#include <string>

// AddressSanitizer keeps freed memory in quarantine, so resident-set bounds do not hold there.
#if defined(__SANITIZE_ADDRESS__)
#define VTA_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VTA_TEST_ASAN 1
#endif
#endif

namespace vta::testmem {

// Resident set in KiB (/proc/self/status VmRSS), -1 where it cannot be read.
inline long rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string key;
  long value = 0;
  while (f >> key) {
    if (key == "VmRSS:") {
      f >> value;
      return value;
    }
    f.ignore(1 << 12, '\n');
  }
  return -1;
}

}  // namespace vta::testmem
