#include "vta/sim/run_progress.h"

namespace vta {

RunProgress& run_progress() {
  static RunProgress progress;
  return progress;
}

}  // namespace vta
