// The engine's admission knobs for a pool, from its GPUPool spec (crds/gpupool.gangplank.io.yaml).
#pragma once

#include <cstddef>

#include "cache/crd/pool_config.h"
#include "engine/admission/admission_input.h"

namespace gangplank::op {

// How many of a pool's held pods a scoring policy (and the fragmentation figure) learns the
// workload's shape from.
inline constexpr std::size_t kPolicyWorkloadSample = 5000;

engine::AdmissionConfig AdmissionConfigFor(const cache::PoolConfig& pool);

}  // namespace gangplank::op
