// The simulator's version as reports record it: `git describe --always --dirty` of the source
// tree when the build was configured, or "<project version>-unknown" outside a git checkout.
#pragma once

namespace vta {

const char* simulator_version();

}  // namespace vta
