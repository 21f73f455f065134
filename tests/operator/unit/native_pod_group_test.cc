// Kubernetes' own PodGroup (scheduling.k8s.io/v1beta1) through the reconcile loop: its pods are one gang
// whatever their labels say, sized by minCount (read again when it changes), admitted one by one under
// basic{}, and under disruptionMode all a lost member restarts the gang whole even where the pool would
// wait for a replacement.
#include <gtest/gtest.h>

#include "tests/operator/support/reconciler_fixture.h"

namespace gangplank::op::testing {
namespace {

class NativePodGroupTest : public ReconcilerTest {
 protected:
  void Group(const std::string& name, const std::string& spec) {
    reader_.objects["PodGroup/ml/" + name] = Json::parse(R"({"metadata":{"name":")" + name + R"(","uid":"uid-pg-)" + name +
                                                         R"("},"spec":)" + spec + "}");
  }
  cache::PodInfo Member(const std::string& name, const std::string& group, int gpus, const std::string& label_gang = "") {
    cache::PodInfo p = GatedPod(name, label_gang, gpus, "team-a");
    p.pod_group_name = group;
    Add(p);
    return p;
  }
  cache::PodInfo RunningMember(const std::string& name, const std::string& group, const std::string& node) {
    cache::PodInfo p = AdmittedPod(name, "", 8, "team-a", node);
    p.pod_group_name = group;
    Add(p);
    return p;
  }
  int Planned(const std::vector<cache::PodInfo>& pods) {
    int n = 0;
    for (const auto& p : pods) n += PlannedNode(p.uid).empty() ? 0 : 1;
    return n;
  }
};

TEST_F(NativePodGroupTest, ItsPodsAreOneGangSizedByMinCountWhateverTheirLabels) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), 8, "r0");
  Group("train", R"({"schedulingPolicy":{"gang":{"minCount":4}},"priority":7})");
  // Two members carry a gangplank.io/gang label naming another gang: the PodGroup wins.
  std::vector<cache::PodInfo> pods;
  for (int i = 0; i < 3; ++i) pods.push_back(Member("train-" + std::to_string(i), "train", 8, i < 2 ? "decoy" : ""));
  Reconcile();
  EXPECT_EQ(Reason(pods[0].uid), "GangIncomplete");
  EXPECT_EQ(Message(pods[0].uid), "3 of 4 pods exist (size from PodGroup ml/train spec.schedulingPolicy.gang.minCount)");
  const auto on_group = writer_.PodGroupCondition("ml/train", kGangConditionType);
  ASSERT_TRUE(on_group);
  EXPECT_EQ(on_group->reason, "GangIncomplete");
  EXPECT_EQ(Planned(pods), 0);

  // minCount lowered to 3: read again within five seconds, and the three start.
  Group("train", R"({"schedulingPolicy":{"gang":{"minCount":3}}})");
  sizes_.Forget("ml/PodGroup.scheduling.k8s.io/train");  // As five seconds passing would.
  Reconcile();
  EXPECT_EQ(Planned(pods), 3);
  EXPECT_EQ(Reason(pods[0].uid), "Admitted");
  EXPECT_EQ(writer_.PodGroupCondition("ml/train", kGangConditionType)->reason, "Admitted");
}

// The group's priority is held to the queue's maxPriority like its pods': a tenant may not outrank its
// queue by naming a higher PriorityClass on the PodGroup than on its pods.
TEST_F(NativePodGroupTest, TheGroupsPriorityIsHeldToItsQueuesMaxPriority) {
  queues_[0].max_priority = 100;
  Node("n0", 8, "r0");
  Group("sneaky", R"({"schedulingPolicy":{"gang":{"minCount":1}},"priority":1000000})");
  const cache::PodInfo pod = Member("sneaky-0", "sneaky", 8);
  Reconcile();
  EXPECT_EQ(Reason(pod.uid), "QueueForbidden");
  EXPECT_EQ(Planned({pod}), 0);
  Group("sneaky", R"({"schedulingPolicy":{"gang":{"minCount":1}},"priority":50})");
  sizes_.Forget("ml/PodGroup.scheduling.k8s.io/sneaky");
  Reconcile();
  EXPECT_EQ(Planned({pod}), 1);
}

TEST_F(NativePodGroupTest, ABasicGroupsPodsStartOneByOneAsTheyFit) {
  Node("n0", 8, "r0");
  Node("n1", 8, "r0");
  Group("serve", R"({"schedulingPolicy":{"basic":{}}})");
  std::vector<cache::PodInfo> pods;
  for (int i = 0; i < 3; ++i) pods.push_back(Member("serve-" + std::to_string(i), "serve", 8));
  for (int round = 0; round < 4; ++round) Reconcile();  // One pod a round, as each admission's pod event brings the next.
  EXPECT_EQ(Planned(pods), 2) << "a gang of three would have waited whole";
  Node("n2", 8, "r0");
  model_->NoteCapacityFreed();
  Reconcile();
  EXPECT_EQ(Planned(pods), 3);
}

TEST_F(NativePodGroupTest, AMissingOrMalformedGroupSaysSoAndAdmitsNothing) {
  Node("n0", 8, "r0");
  const cache::PodInfo lost = Member("lost-0", "ghost", 4);
  Group("bad", R"({"schedulingPolicy":{}})");
  const cache::PodInfo bad = Member("bad-0", "bad", 4);
  Reconcile();
  EXPECT_EQ(Reason(lost.uid), "GangSizeUnknown");
  EXPECT_EQ(Message(lost.uid), "PodGroup ml/ghost (scheduling.k8s.io/v1beta1) does not exist");
  EXPECT_EQ(Reason(bad.uid), "GangSizeUnknown");
  EXPECT_EQ(Message(bad.uid), "PodGroup ml/bad spec.schedulingPolicy: expected exactly one of basic and gang");
  EXPECT_EQ(Planned({lost, bad}), 0);
}

// Three members of a minCount-2 group run; one is deleted. The pool replaces lost members alone
// (replaceMembers), and two still meet minCount: under disruptionMode single the gang runs on; under all
// the loss is the gang's, and it is restarted whole.
class LostMemberTest : public NativePodGroupTest {
 protected:
  // How many of the two remaining members are evicted once the third is lost.
  size_t EvictedAfterALostMember(const std::string& mode) {
    pool_.fault_recovery.replace_members = true;
    Remake();
    for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i), 8, "r0");
    Group("train", R"({"schedulingPolicy":{"gang":{"minCount":2}},"disruptionMode":{")" + mode + R"(":{}}})");
    std::vector<cache::PodInfo> pods;
    for (int i = 0; i < 3; ++i) pods.push_back(RunningMember("train-" + std::to_string(i), "train", "n" + std::to_string(i)));
    Reconcile();
    EXPECT_TRUE(writer_.evicted().empty());
    EXPECT_TRUE(member_faults_.Observe("ml/PodGroup.scheduling.k8s.io/train", pods[2], true, now_));
    Remove(pods[2]);
    now_ += 1;
    Reconcile();
    return writer_.evicted().size();
  }
};

TEST_F(LostMemberTest, UnderDisruptionModeSingleTheGangRunsOnAndWaitsForAReplacement) {
  EXPECT_EQ(EvictedAfterALostMember("single"), 0u);
}

TEST_F(LostMemberTest, UnderDisruptionModeAllTheGangIsRestartedWhole) {
  EXPECT_EQ(EvictedAfterALostMember("all"), 2u);
}

}  // namespace
}  // namespace gangplank::op::testing
