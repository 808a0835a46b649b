// The installed C++ API: the runtime's config through runtime_config() must be the one the C
// queries report. Exit status 0 when they agree.
#include <cstdio>
#include <string>

#include <vta/hw_query.h>
#include <vta/runtime_cpp.h>

int main() {
  const vta::HwConfig& c = vta::runtime_config();
  const bool ok =
      static_cast<int>(VTAHwBlockIn()) == c.block_in && static_cast<int>(VTAHwBatch()) == c.batch &&
      VTAHwAccBuffDepth() == c.acc_buff_depth && vta::runtime_backend_name() == VTAHwBackendName();
  std::printf("runtime_cpp_consumer: model %s on %s: %s\n", c.model_name.c_str(),
              vta::runtime_backend_name().c_str(), ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
