// The two-phase admission write and its recovery: no gang is ever half-admitted.
#include "operator/admission/admission_commit.h"
#include "operator/gangs/admission_id.h"

#include <gtest/gtest.h>

#include "tests/operator/support/fake_cluster_writer.h"

namespace gangplank::op {
namespace {

using testing::FakeClusterWriter;

cache::PodInfo GatedPod(const std::string& name) {
  cache::PodInfo p;
  p.name = name;
  p.namespace_ = "ml";
  p.uid = "uid-" + name;
  p.resource_version = "1";
  p.scheduling_gates = {"gangplank.io/admission"};
  return p;
}

class AdmissionCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 4; ++i) {
      pods_.push_back(GatedPod("w-" + std::to_string(i)));
      writer_.Put(pods_.back());
    }
  }
  std::vector<PlannedMember> Plan() {
    std::vector<PlannedMember> members;
    for (size_t i = 0; i < pods_.size(); ++i) members.push_back({pods_[i], "node-" + std::to_string(i), std::nullopt});
    return members;
  }
  std::function<void(const cache::PodInfo&)> Assume() {
    return [this](const cache::PodInfo& p) { assumed_.push_back(p.name); };
  }

  FakeClusterWriter writer_;
  std::vector<cache::PodInfo> pods_;
  std::vector<std::string> assumed_;
};

TEST_F(AdmissionCommit, EveryMemberIsPlannedBeforeAnyIsReleased) {
  const CommitResult r = CommitAdmission(writer_, Plan(), "100-abc", Assume());
  EXPECT_TRUE(r.committed);
  EXPECT_EQ(r.released, 4);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(writer_.log(), (std::vector<std::string>{"plan w-0", "plan w-1", "plan w-2", "plan w-3", "release w-0",
                                                     "release w-1", "release w-2", "release w-3"}));
  const cache::PodInfo stored = *writer_.Pod("uid-w-2");
  EXPECT_EQ(stored.annotations.at("gangplank.io/planned-node"), "node-2");
  EXPECT_EQ(stored.annotations.at("gangplank.io/admission-id"), "100-abc");
  EXPECT_TRUE(stored.scheduling_gates.empty());
  EXPECT_EQ(assumed_.size(), 8u);  // Every write was handed to the caller's caches.
}

TEST_F(AdmissionCommit, AMemberHeldToARuntimeGetsItWithItsPlan) {
  std::vector<PlannedMember> members = Plan();
  members[1].active_deadline_seconds = 600;
  ASSERT_TRUE(CommitAdmission(writer_, members, "100-abc", Assume()).committed);
  EXPECT_EQ(writer_.Pod("uid-w-1")->active_deadline_seconds, std::optional<std::int64_t>(600));
  EXPECT_FALSE(writer_.Pod("uid-w-0")->active_deadline_seconds);
}

TEST_F(AdmissionCommit, AMemberThatChangedRollsThePlanBack) {
  writer_.Touch("uid-w-2");  // Someone wrote w-2 after the plan read it.
  const CommitResult r = CommitAdmission(writer_, Plan(), "100-abc", Assume());
  EXPECT_FALSE(r.committed);
  EXPECT_NE(r.error.find("pod w-2 changed"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("rolled back"), std::string::npos) << r.error;
  for (const auto& p : pods_) {
    const cache::PodInfo stored = *writer_.Pod(p.uid);
    EXPECT_EQ(stored.annotations.count("gangplank.io/planned-node"), 0u) << p.name;
    EXPECT_EQ(stored.scheduling_gates, std::vector<std::string>{"gangplank.io/admission"}) << p.name;
  }
}

TEST_F(AdmissionCommit, ReleasingRereadsAMemberThatChangedAfterPhaseOne) {
  std::vector<cache::PodInfo> planned;
  for (auto& m : Plan()) planned.push_back(writer_.PlanPod(m.pod, m.node, "7-x"));
  writer_.Touch("uid-w-1");  // e.g. the kubelet or a label edit between the phases.
  std::string error;
  EXPECT_EQ(ReleaseMembers(writer_, planned, "7-x", Assume(), &error), 4);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_TRUE(writer_.Pod("uid-w-1")->scheduling_gates.empty());
}

Gang GangOf(std::vector<Member> members) {
  Gang g;
  g.key = "ml/Job/train";
  g.members = std::move(members);
  return g;
}

Member Planned(const std::string& id, bool gated = true) {
  Member m;
  m.gated = gated;
  m.planned_node = "n";
  m.admission_id = id;
  return m;
}

Member Unplanned() {
  Member m;
  m.gated = true;
  return m;
}

TEST(Recovery, FinishesAWholePlanAndRollsBackAPartOne) {
  EXPECT_EQ(RecoveryFor(GangOf({Unplanned(), Unplanned()}), 2), Recovery::kNone);
  // Stopped between the phases: every gated member carries one plan (some may be released already).
  EXPECT_EQ(RecoveryFor(GangOf({Planned("a"), Planned("a"), Planned("a", false)}), 3), Recovery::kFinishRelease);
  // Stopped during phase 1: some members planned, others not.
  EXPECT_EQ(RecoveryFor(GangOf({Planned("a"), Unplanned(), Unplanned()}), 3), Recovery::kRollBack);
  // Two plans on one gang can only be a mess: roll back.
  EXPECT_EQ(RecoveryFor(GangOf({Planned("a"), Planned("b")}), 2), Recovery::kRollBack);
  // More members than the minimum: a plan covering the minimum stands; the extra member waits.
  EXPECT_EQ(RecoveryFor(GangOf({Planned("a"), Planned("a"), Unplanned()}), 2), Recovery::kFinishRelease);
}

TEST(AdmissionId, RecordsWhenTheGangWasAdmitted) {
  const std::string id = NewAdmissionId(1700000000.7);
  EXPECT_EQ(id.substr(0, 11), "1700000000-");
  EXPECT_NE(NewAdmissionId(1700000000), NewAdmissionId(1700000000));
  EXPECT_EQ(AdmittedAt(id), 1700000000);
  EXPECT_EQ(AdmittedAt("junk"), 0);
}

}  // namespace
}  // namespace gangplank::op
