// What a waiting gang needs, in the terms the admission round compares gangs by: "a gang needing at
// least what a failed gang needed fails too" (so it is not planned again in the round), and pod shapes
// (one reservation or reclaim attempt per queue and shape).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/gang/gang_request.h"

namespace gangplank::engine {

// Only gangs whose members all have the same constraints and that need every member are comparable.
struct GangShape {
  bool comparable = false;
  const GangRequest* gang = nullptr;
  std::vector<std::array<std::int64_t, 3>> sizes;  // (GPUs, CPU, memory) per member, descending.
};

// Whether two members ask for the same kind of node: GPU share, models, selector and tolerations.
bool SameConstraints(const PodRequest& a, const PodRequest& b);

GangShape ShapeOf(const GangRequest& gang);

// True when `a` needs at least what `b` needs, member by member, under the same constraints.
bool NeedsAtLeast(const GangShape& a, const GangShape& b);

// The members' GPU counts, descending.
std::vector<int> GpuSizes(const GangRequest& gang);

}  // namespace gangplank::engine
