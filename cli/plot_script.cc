#include "plot_script.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::cli {

namespace {

namespace fs = std::filesystem;

std::string script_path(const std::string& script) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = exe.parent_path().parent_path() / "share/vta/plots" / script;
  if (!ec && fs::is_regular_file(installed, ec)) {
    return installed.string();
  }
  return (fs::path(VTA_PLOTS_DIR) / script).string();
}

}  // namespace

void run_plot_script(const std::string& script, const std::vector<std::string>& args) {
  const char* env = std::getenv("VTA_PYTHON");
  const std::string python = env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
  std::vector<std::string> argv_s = {python, script_path(script)};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    throw Error(fmt::format("cannot start {}: fork failed", script));
  }
  if (pid == 0) {
    execv(argv[0], argv.data());
    _exit(127);  // exec failed: reported by the parent
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    throw Error(fmt::format("cannot run {} with {} (install python3-matplotlib, or set VTA_PYTHON)",
                            script, python));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw Error(fmt::format("{} failed (exit status {})", script,
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
}

}  // namespace vta::cli
