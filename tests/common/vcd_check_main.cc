// vta_vcd_check FILE...: the independent VCD check of vcd_check.h for files other programs
// wrote (the CLI's --vcd); prints every problem and exits 1 if there is one.
#include <iostream>

#include "vcd_check.h"

int main(int argc, char** argv) {
  int bad = 0;
  for (int i = 1; i < argc; ++i) {
    const VcdContents c = read_vcd(argv[i]);
    for (const std::string& p : check_vcd_file(argv[i])) {
      std::cout << argv[i] << ": " << p << "\n";
      ++bad;
    }
    std::cout << argv[i] << ": " << c.times.size() << " time stamps, timescale " << c.timescale
              << "\n";
  }
  return bad == 0 ? 0 : 1;
}
