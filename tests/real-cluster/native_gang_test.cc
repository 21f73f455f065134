// Kubernetes' own gangs (scheduling.k8s.io/v1beta1 PodGroup, gate GenericWorkload) with gangplank, on
// the real 1.37 control plane with the gates on: a pod joins its gang by spec.schedulingGroup, and
// gangplank admits the group by its own terms (minCount, basic{}, the topology key). Two ways, one
// control plane each (CMakeLists.txt):
//   real_cluster_native_gangs       the chart's default: gangplank's kube-scheduler keeps the gate off and
//                                   binds the released pods one by one; a basic group starts pod by pod.
//   real_cluster_native_gang_cycle  scheduler.nativeGangCycle: gangplank's kube-scheduler runs the PodGroup
//                                   cycle too (GANGPLANK_NATIVE_GANG_CYCLE=1), placing what gangplank
//                                   released all or nothing and writing PodGroupInitiallyScheduled beside
//                                   gangplank's gangplank.io/GangAdmitted; it holds a group while any pod of
//                                   it is gated, so a basic group is admitted whole.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>
#include <thread>

#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

class NativeGangsOnRealCluster : public RealClusterTest {
 public:
  // The operator's defaults: a PodGroup change brings no pod event, so a changed minCount and a group
  // made after its pods are seen through gangplank's PodGroup watch, not a periodic round.
  static void SetUpTestSuite() { StartControlPlane({Cycle() ? "--native-gang-cycle" : "--native-gangs"}); }
  static bool Cycle() {
    const char* cycle = std::getenv("GANGPLANK_NATIVE_GANG_CYCLE");
    return cycle != nullptr && std::string_view(cycle) == "1";
  }

 protected:
  // A PodGroup of this namespace with `policy` ({"gang":{"minCount":4}} or {"basic":{}}) and `extra` spec.
  void Group(const std::string& name, const Json& policy, const Json& extra = Json::object()) {
    Json spec = extra;
    spec["schedulingPolicy"] = policy;
    client().Create(kube::resources::PodGroups(), ns(),
                    Json{{"apiVersion", "scheduling.k8s.io/v1beta1"}, {"kind", "PodGroup"}, {"metadata", {{"name", name}}}, {"spec", spec}});
  }
  // A gangplank pod of `group`, told by nothing but spec.schedulingGroup (no gangplank label).
  void Member(const std::string& name, const std::string& group, int gpus = 8) {
    Json pod = PodObject(name, PodSpec().Gpus(gpus).Queue("team-a"));
    pod["spec"]["schedulingGroup"] = {{"podGroupName", group}};
    const Json stored = Create(pod);
    ASSERT_EQ(stored.value("/spec/schedulingGroup/podGroupName"_json_pointer, std::string()), group)
        << "the API server dropped spec.schedulingGroup: is GenericWorkload on?\n" << stored.dump();
  }
  // A condition of the PodGroup's status (null when it has none of that type).
  Json GroupCondition(const std::string& group, const std::string& type) {
    const auto object = client().TryGet(kube::resources::PodGroups(), ns(), group);
    if (!object) return nullptr;
    for (const Json& c : object->value("/status/conditions"_json_pointer, Json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return nullptr;
  }
  std::string GroupReason(const std::string& group, const std::string& type) {
    const Json c = GroupCondition(group, type);
    return c.is_object() ? c.value("status", "") + "/" + c.value("reason", "") : "";
  }
};

// Two cliques of four 8-GPU nodes, one node of clique 0 taken by another scheduler's pod: the group's
// topology key keeps its four members in clique 1, the only one with room for all of them.
TEST_F(NativeGangsOnRealCluster, AFourByEightGpuGangDeclaredByAPodGroupIsAdmittedWholeInOneClique) {
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < 4; ++i) Node("c" + std::to_string(c) + "-n" + std::to_string(i), 8, {{"nvidia.com/gpu.clique", "clique-" + std::to_string(c)}});
  }
  ExemptFromFence();
  Create(PodObject("other", PodSpec().Gpus(4).BoundTo("c0-n2")));
  Pool("h100", Json::parse(R"({"topologyLevels":["nvidia.com/gpu.clique","kubernetes.io/hostname"]})"));
  Queue("team-a");
  Group("train", Json::parse(R"({"gang":{"minCount":4}})"),
        Json::parse(R"({"schedulingConstraints":{"topology":[{"key":"nvidia.com/gpu.clique"}]}})"));
  for (int i = 0; i < 3; ++i) Member("train-" + std::to_string(i), "train");
  // Three of four: gangplank holds them, saying so on the pods and on the PodGroup.
  const std::string incomplete = "3 of 4 pods exist (size from PodGroup " + ns() + "/train spec.schedulingPolicy.gang.minCount)";
  ASSERT_TRUE(WaitFor([&] { return GangCondition("train-0").value("message", "") == incomplete; }))
      << GangCondition("train-0").dump() << Logs();
  EXPECT_EQ(GangCondition("train-0").value("reason", ""), "GangIncomplete");
  EXPECT_TRUE(WaitFor([&] { return GroupReason("train", "gangplank.io/GangAdmitted") == "False/GangIncomplete"; })) << Logs();
  for (const auto& p : Names("train", 3)) EXPECT_TRUE(Gated(p)) << p;

  Member("train-3", "train");
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << GangCondition("train-0").dump() << Logs();
  ExpectOnOwnPlannedNodesIn(Names("train", 4), "nvidia.com/gpu.clique", "clique-1");
  EXPECT_TRUE(WaitFor([&] { return GroupReason("train", "gangplank.io/GangAdmitted") == "True/Admitted"; })) << Logs();
  if (Cycle()) {
    // The scheduler's PodGroup cycle placed the group, and said so in its own condition, beside gangplank's.
    EXPECT_TRUE(WaitFor([&] { return GroupReason("train", "PodGroupInitiallyScheduled") == "True/Scheduled"; })) << Logs();
    EXPECT_EQ(GroupReason("train", "gangplank.io/GangAdmitted"), "True/Admitted");
  } else {
    EXPECT_EQ(GroupReason("train", "PodGroupInitiallyScheduled"), "") << "gangplank's scheduler ran a PodGroup cycle";
  }
  EXPECT_TRUE(Said("Admitted", "gang " + ns() + "/PodGroup.scheduling.k8s.io/train")) << Logs();
}

// minCount is mutable: scaling a waiting gang down lets it start with the pods it has.
TEST_F(NativeGangsOnRealCluster, AMinCountDecreaseLetsAWaitingGangStart) {
  for (int i = 0; i < 4; ++i) Node("m-n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  Group("shrink", Json::parse(R"({"gang":{"minCount":4}})"));
  for (int i = 0; i < 3; ++i) Member("shrink-" + std::to_string(i), "shrink");
  ASSERT_TRUE(WaitFor([&] { return GangCondition("shrink-0").value("reason", "") == "GangIncomplete"; })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const auto& p : Names("shrink", 3)) EXPECT_TRUE(Gated(p)) << p;

  client().Patch(kube::resources::PodGroups(), ns(), "shrink", kube::PatchType::kMerge,
                 Json::parse(R"({"spec":{"schedulingPolicy":{"gang":{"minCount":3}}}})"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("shrink", 3)); })) << GangCondition("shrink-0").dump() << Logs();
  EXPECT_TRUE(WaitFor([&] { return GroupReason("shrink", "gangplank.io/GangAdmitted") == "True/Admitted"; })) << Logs();
}

// basic{}: the pods of the group are not a gang; each starts when it fits. Two 8-GPU nodes, three 8-GPU
// pods: two run, the third waits gated (not the all-or-nothing a gang would get) until a node comes.
// Under the PodGroup cycle the scheduler holds a group's released pods while any is gated, so gangplank
// admits the pods waiting at a time together: none is bound until all three fit, and then all are. The
// group is made after its pods (which wait for it), so all three are waiting when gangplank's PodGroup
// watch sees it; made first, a pod could be admitted alone before the next one exists.
TEST_F(NativeGangsOnRealCluster, ABasicGroupsPodsAreAdmittedOneByOne) {
  Node("b-n0", 8);
  Node("b-n1", 8);
  Pool("pool");
  Queue("team-a");
  for (int i = 0; i < 3; ++i) Member("serve-" + std::to_string(i), "serve");
  // The condition is on the gang's oldest pod; the other two were created just after it and their
  // events come on the same pod watch, so give them a moment to be read too.
  ASSERT_TRUE(WaitFor([&] { return GangCondition("serve-0").value("reason", "") == "GangSizeUnknown"; })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  Group("serve", Json::parse(R"({"basic":{}})"));
  if (Cycle()) {
    std::this_thread::sleep_for(std::chrono::seconds(5));
    for (const auto& p : Names("serve", 3)) EXPECT_EQ(NodeOf(p), "") << p;
    Node("b-n2", 8);
    EXPECT_TRUE(WaitFor([&] { return AllBound(Names("serve", 3)); })) << Logs();
    return;
  }
  ASSERT_TRUE(WaitFor([&] {
    int bound = 0;
    for (const auto& p : Names("serve", 3)) bound += NodeOf(p).empty() ? 0 : 1;
    return bound == 2;
  })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  int gated = 0;
  for (const auto& p : Names("serve", 3)) gated += Gated(p) ? 1 : 0;
  EXPECT_EQ(gated, 1);
  Node("b-n2", 8);
  EXPECT_TRUE(WaitFor([&] { return AllBound(Names("serve", 3)); })) << Logs();
}

// A pod naming a PodGroup that does not exist waits, and says which object it is waiting for.
TEST_F(NativeGangsOnRealCluster, APodOfAMissingPodGroupSaysSoAndStartsWhenTheGroupAppears) {
  Node("x-n0", 8);
  Pool("pool");
  Queue("team-a");
  Member("lost-0", "ghost", 4);
  ASSERT_TRUE(WaitFor([&] { return GangCondition("lost-0").value("reason", "") == "GangSizeUnknown"; })) << Logs();
  EXPECT_EQ(GangCondition("lost-0").value("message", ""), "PodGroup " + ns() + "/ghost (scheduling.k8s.io/v1beta1) does not exist");
  Group("ghost", Json::parse(R"({"gang":{"minCount":1}})"));
  EXPECT_TRUE(WaitFor([&] { return !NodeOf("lost-0").empty(); })) << Logs();
}

}  // namespace
}  // namespace gangplank::real_cluster
