// Whether PodDisruptionBudgets let a whole gang be evicted now. The Eviction API checks one pod at a
// time, so evicting the members of a gang one by one could stop half way (a budget allowing one
// disruption lets the first member go and refuses the second), leaving a broken gang whose
// replacements, held by the admission gate, never make the budget healthy again. So the budgets are
// checked for the whole gang before any member is evicted.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache/objects/kube_objects.h"

namespace gangplank::op {

// Why the budgets forbid evicting every pod in `members` now (empty when they allow it): for each
// budget, the members it selects must not exceed its status.disruptionsAllowed.
std::string BudgetsForbid(const std::vector<nlohmann::json>& budgets, const std::vector<cache::PodInfo>& members);

// Whether a metav1.LabelSelector (matchLabels, matchExpressions In/NotIn/Exists/DoesNotExist) selects
// these labels. A null selector selects nothing and an empty one everything (policy/v1); a malformed one
// nothing.
bool SelectorMatches(const nlohmann::json& selector, const std::map<std::string, std::string>& labels);

}  // namespace gangplank::op
