// The engine's admission knobs for a pool, from its GPUPool spec (crds/gpupool.gangplank.io.yaml).
#pragma once

#include "cache/crd/pool_config.h"
#include "engine/admission/admission_input.h"

namespace gangplank::op {

engine::AdmissionConfig AdmissionConfigFor(const cache::PoolConfig& pool);

}  // namespace gangplank::op
