// A namespace's ungoverned GPU pods (gangs/ungoverned_pods.h) as the admission round sees them: one
// running entry of the namespace's queue holding what those pods hold in this pool, never a victim
// (engine::RunningGang::ungoverned).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cache/state/state_view.h"
#include "engine/admission/admission_input.h"

namespace gangplank::op {

// None when no pod of `uids` holds GPUs in the pool's state `view`. `start`: when the entry first
// appeared (the round expects it to run as long again).
std::optional<engine::RunningGang> BuildUngovernedEntry(const std::string& key, const std::string& queue,
                                                        const std::vector<std::string>& uids,
                                                        const cache::StateView& view, double start);

}  // namespace gangplank::op
