// Builders the fault-recovery tests share: gangs whole on their nodes, node faults by cause.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/recovery/gang_recovery.h"

namespace gangplank::engine::recovery_test {

inline constexpr double kNow = 10000;

// A gang running whole, one member per node, under the default config.
inline GangHealth Gang(const std::string& name, std::vector<std::string> nodes) {
  GangHealth g;
  g.name = name;
  g.nodes = std::move(nodes);
  g.members = static_cast<int>(g.nodes.size());
  g.min_members = g.members;
  return g;
}

inline NodeFault Fault(const std::string& node, FaultCause cause, double since, bool host_alive) {
  NodeFault f;
  f.node = node;
  f.cause = cause;
  f.signal = "signal";
  f.since = since;
  f.host_alive = host_alive;
  return f;
}

inline MemberFault Member(const std::string& pod, const std::string& node, FaultCause cause, double since) {
  return MemberFault{pod, node, cause, since};
}

// The plan's one decision (a failed expectation, and an empty decision, when it has not exactly one).
inline RecoveryDecision Only(const RecoveryPlan& plan) {
  EXPECT_EQ(plan.decisions.size(), 1u);
  return plan.decisions.empty() ? RecoveryDecision{} : plan.decisions.front();
}

}  // namespace gangplank::engine::recovery_test
