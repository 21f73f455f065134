// metav1.Condition conventions for status writes: conditions are a list keyed by `type`;
// lastTransitionTime changes only when `status` flips; observedGeneration records which spec generation
// the controller acted on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/time_format.h"

namespace gangplank::kube {

struct ConditionUpdate {
  std::string type;
  std::string status;  // True | False | Unknown
  std::string reason;  // CamelCase, required
  std::string message;
  int64_t observed_generation = 0;
};

// Throws std::invalid_argument for an empty type, a status other than True/False/Unknown, or a reason
// that is not CamelCase ([A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?).
void ValidateCondition(const ConditionUpdate& update);

// Sets or inserts the condition in `conditions` (a JSON array, created if null). Keeps
// lastTransitionTime when status is unchanged, sets it to `now` when the status changes or the condition
// is new. Returns true if anything changed.
bool SetCondition(nlohmann::json& conditions, const ConditionUpdate& update, base::SystemTime now);

// Finds the condition of the given type, or nullptr.
const nlohmann::json* FindCondition(const nlohmann::json& conditions, const std::string& type);

// Sets status.observedGeneration = metadata.generation of `object` in `status`.
void SetObservedGeneration(nlohmann::json& status, const nlohmann::json& object);

}  // namespace gangplank::kube
