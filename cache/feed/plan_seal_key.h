// The plan seal's key as the operator and the extender load it: a file (the chart mounts the Secret it
// generates), its trailing newline ignored.
#pragma once

#include <memory>
#include <string>

#include "cache/objects/plan_seal.h"

namespace gangplank::cache {

// Null for an empty path (plans trusted as written); throws runtime_error naming the file when it cannot
// be read or holds too short a key.
std::shared_ptr<const PlanSeal> ReadPlanSealKey(const std::string& path);

}  // namespace gangplank::cache
