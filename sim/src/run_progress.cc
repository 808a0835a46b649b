#include "vta/sim/run_progress.h"

namespace vta {

namespace {

thread_local StopCheck t_check = nullptr;
thread_local uint64_t t_since = 0;  // work since the check was last asked

}  // namespace

RunProgress& run_progress() {
  static RunProgress progress;
  return progress;
}

void set_stop_check(StopCheck check) {
  t_check = check;
  t_since = 0;
}

void poll_stop(uint64_t work) {
  if (t_check == nullptr) {
    return;
  }
  t_since += work;
  if (t_since < kStopPollUnits) {
    return;
  }
  t_since = 0;
  if (t_check()) {
    throw RunInterrupted();
  }
}

}  // namespace vta
