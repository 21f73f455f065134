// Makes node-scoring policies by name, so the simulator, benchmarks and adapters share one list.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

struct PolicyInfo {
  std::string name;          // What MakePolicy accepts, e.g. "fgd".
  std::string display_name;  // For reports, e.g. "FGD".
  std::string summary;       // One line.
};

// Every policy, baselines in the FGD paper's order, then FGD, then gangplank's own.
const std::vector<PolicyInfo>& AllPolicies();
std::vector<std::string> PolicyNames();
// Variants kept for analysis, made by name but not part of the default set (e.g. "fgd-bf": FGD's score
// with ties broken toward the fuller node; it was the first hint that the paper's simulator does not break
// ties at random, see simulator/frag/node_order_placement.h).
const std::vector<PolicyInfo>& VariantPolicies();
// Info for a name (policies and variants); throws std::invalid_argument listing the known names.
const PolicyInfo& FindPolicy(std::string_view name);

// A fresh policy. `workload` is the trace's pod list; fragmentation-aware policies derive their typical
// task distribution from it (others ignore it). `seed` feeds policies that draw random numbers of their
// own (Random's GPU choice). Throws std::invalid_argument for an unknown name.
std::unique_ptr<ScoringPolicy> MakePolicy(std::string_view name, const std::vector<PodRequest>& workload,
                                          std::uint64_t seed = 0);

}  // namespace gangplank::engine::policies
