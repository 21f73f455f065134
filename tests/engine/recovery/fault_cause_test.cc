// Fault cause names are API (metric labels, reason suffixes): each pinned.
#include "engine/recovery/fault_cause.h"

#include <gtest/gtest.h>

namespace gangplank::engine {
namespace {

TEST(FaultCause, EveryCauseHasItsStableName) {
  EXPECT_EQ(FaultCauseName(FaultCause::kMemberFailed), "MemberFailed");
  EXPECT_EQ(FaultCauseName(FaultCause::kMemberDeleted), "MemberDeleted");
  EXPECT_EQ(FaultCauseName(FaultCause::kNodeNotReady), "NodeNotReady");
  EXPECT_EQ(FaultCauseName(FaultCause::kNodeUnreachable), "NodeUnreachable");
  EXPECT_EQ(FaultCauseName(FaultCause::kNodeCondition), "NodeCondition");
  EXPECT_EQ(FaultCauseName(FaultCause::kGpuShortfall), "GpuShortfall");
  EXPECT_EQ(FaultCauseName(FaultCause::kQuarantine), "Quarantine");
  EXPECT_EQ(FaultCauseName(FaultCause::kBelowMinimum), "BelowMinimum");
}

TEST(FaultCause, OnlyNotReadyAndUnreachableAreLostHostsAndOnlyNodeCausesNameANodeToAvoid) {
  EXPECT_TRUE(IsLostHost(FaultCause::kNodeNotReady));
  EXPECT_TRUE(IsLostHost(FaultCause::kNodeUnreachable));
  EXPECT_FALSE(IsLostHost(FaultCause::kGpuShortfall));
  EXPECT_FALSE(IsLostHost(FaultCause::kMemberFailed));
  EXPECT_TRUE(IsNodeCause(FaultCause::kQuarantine));
  EXPECT_TRUE(IsNodeCause(FaultCause::kNodeCondition));
  EXPECT_FALSE(IsNodeCause(FaultCause::kMemberDeleted));
  EXPECT_FALSE(IsNodeCause(FaultCause::kBelowMinimum));
}

}  // namespace
}  // namespace gangplank::engine
