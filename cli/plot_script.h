// The plotting scripts of the exploration layer (explore/plots/*.py, matplotlib), run with
// Debian's /usr/bin/python3 (or $VTA_PYTHON): `vtasim sweep report` and `--plot FILE.png`.
#pragma once

#include <string>
#include <vector>

namespace vta::cli {

// Runs explore/plots/<script> with `args` (the installed copy in ../share/vta/plots next to
// vtasim first, else the source tree's). Throws vta::Error naming the script when it cannot be
// started or exits non-zero (its stderr has already been shown).
void run_plot_script(const std::string& script, const std::vector<std::string>& args);

}  // namespace vta::cli
