// Taking GPUs back on the real control plane, through the real eviction API: priority preemption evicts
// one whole lower-priority gang (PriorityClasses resolved by the real Priority admission plugin), and a
// spot termination notice asks every member of a gang to checkpoint, then evicts the gang whole.
#include <gtest/gtest.h>

#include <thread>

#include "base/time_format.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

const kube::ResourceDescriptor& PriorityClasses() {
  static const kube::ResourceDescriptor r{"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false};
  return r;
}

class ReclaimOnRealCluster : public RealClusterTest {
 protected:
  void TearDown() override {
    RealClusterTest::TearDown();
    for (const auto& name : priority_classes_) client().Remove(PriorityClasses(), "", name);
  }
  void PriorityClass(const std::string& name, int value) {
    const std::string unique = ns() + "-" + name;  // Cluster-scoped: one per test.
    client().Create(PriorityClasses(), "",
                    Json{{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", unique}}}, {"value", value}});
    priority_classes_.push_back(unique);
  }
  Json WithPriorityClass(Json pod, const std::string& name) {
    pod["spec"]["priorityClassName"] = ns() + "-" + name;
    return pod;
  }
  std::size_t Members(const std::string& gang) { return Pods("gangplank.io/gang=" + gang).size(); }

 private:
  std::vector<std::string> priority_classes_;
};

TEST_F(ReclaimOnRealCluster, AHighPriorityGangEvictsOneWholeLowPriorityGangAndNothingElse) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool", Json::parse(R"({"preemption":{"reclaim":false,"minWaitSeconds":0}})"));
  Queue("team-a", Json::parse(R"({"preemption":{"withinQueue":"LowerPriority","minRuntimeSeconds":0}})"));
  PriorityClass("low", 10);
  PriorityClass("high", 1000);
  const PodSpec spec = PodSpec().Gpus(8).Queue("team-a");
  for (const std::string gang : {"low-a", "low-b", "urgent"}) {
    if (gang == "urgent") {
      ASSERT_TRUE(WaitFor([&] { return AllBound(Names("low-a", 2)) && AllBound(Names("low-b", 2)); })) << Logs();
      std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // Past a minimum runtime of 0 s.
    }
    PodSpec s = spec;
    s.Gang(gang, 2);
    for (int i = 0; i < 2; ++i) {
      Create(WithPriorityClass(PodObject(gang + "-" + std::to_string(i), s), gang == "urgent" ? "high" : "low"));
    }
  }
  ASSERT_EQ(Pod("urgent-0")->value("/spec/priority"_json_pointer, 0), 1000) << "the Priority admission plugin did not resolve the class";
  ASSERT_TRUE(WaitFor([&] { return Members("low-a") == 0 || Members("low-b") == 0; })) << Logs();
  const std::string victim = Members("low-a") == 0 ? "low-a" : "low-b";
  const std::string survivor = victim == "low-a" ? "low-b" : "low-a";
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("urgent", 2)); })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(Members(survivor), 2u) << "the other low gang must be untouched";
  EXPECT_TRUE(AllBound(Names(survivor, 2)));
  EXPECT_EQ(Members(victim), 0u);
  EXPECT_TRUE(WaitFor([&] { return Said("PriorityPreemption"); })) << Logs();
  // The urgent pods change while the operator plans from its cache (their condition is written as they
  // wait): a conflict is planned again once the informer catches up, not in a loop on the same stale
  // versions. Before the fix: 122 conflicts in half a second; after, 0 to 7 (CI's loaded machine).
  EXPECT_LT(cluster().OperatorMetric("gangplank_operator_admission_conflicts_total"), 25) << Logs();
}

// kube-scheduler's own preemption (DefaultPreemption) asks the extender's preempt verb which victims may
// go: a high-priority pod that no gangplank admission gates (it is created in gangplank's own namespace,
// which the webhook never sees) finds both nodes full of two-pod gangs; kube-scheduler proposes victims,
// the extender keeps only whole gangs, and kube-scheduler evicts exactly one gang and binds the pod.
TEST_F(ReclaimOnRealCluster, KubeSchedulersOwnPreemptionAsksTheExtenderAndTakesOneWholeGang) {
  for (int i = 0; i < 2; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  PriorityClass("low", 10);
  PriorityClass("high", 1000);
  for (const std::string gang : {"low-a", "low-b"}) {
    for (int i = 0; i < 2; ++i) {
      Create(WithPriorityClass(PodObject(gang + "-" + std::to_string(i), PodSpec().Gpus(4).Queue("team-a").Gang(gang, 2)), "low"));
    }
  }
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("low-a", 2)) && AllBound(Names("low-b", 2)); })) << Logs();
  ASSERT_EQ(NodeOf("low-a-0"), NodeOf("low-a-1")) << "each gang fits one node; the plan packs it there";

  Json urgent = WithPriorityClass(PodObject("urgent", PodSpec().Gpus(8)), "high");
  urgent["metadata"]["namespace"] = "gangplank-system";
  const Json stored = client().Create(kube::resources::Pods(), "gangplank-system", urgent);
  ASSERT_FALSE(stored["spec"].contains("schedulingGates")) << "the webhook must not see gangplank's own namespace";
  const auto urgent_node = [&] {
    const auto p = client().TryGet(kube::resources::Pods(), "gangplank-system", "urgent");
    return p ? p->value("/spec/nodeName"_json_pointer, std::string()) : "";
  };
  ASSERT_TRUE(WaitFor([&] { return !urgent_node().empty(); }, std::chrono::seconds(90))) << Logs();
  const std::string victim = Members("low-a") == 0 ? "low-a" : "low-b";
  const std::string survivor = victim == "low-a" ? "low-b" : "low-a";
  EXPECT_EQ(Members(victim), 0u) << "kube-scheduler evicts the whole gang the extender allowed";
  EXPECT_EQ(Members(survivor), 2u);
  EXPECT_TRUE(AllBound(Names(survivor, 2)));
  EXPECT_NE(NodeOf(survivor + "-0"), urgent_node());
  // kube-scheduler's own preemption evicted them, having asked the extender about its candidates.
  const std::string log = cluster().LogTail("kube-scheduler", 1 << 20);
  EXPECT_NE(log.find("\"Preemptor Pod preempted victim Pod\" preemptor=\"gangplank-system/urgent\" victim=\"" + ns() + "/" + victim + "-0\""),
            std::string::npos) << Logs();
  EXPECT_GE(cluster().ExtenderMetric("gangplank_extender_preempt_nodes_total"), 1) << "the preempt verb was never called";
  client().Remove(kube::resources::Pods(), "gangplank-system", "urgent");
}

// A spot pool: a termination notice (gangplank.io/terminate-at) on one node of a running gang asks every
// member to checkpoint by one deadline; nothing is evicted until a member acknowledges; then the whole
// gang goes through the eviction API, and the gang recreated by its owner lands off the doomed node.
TEST_F(ReclaimOnRealCluster, ASpotNoticeCheckpointsTheWholeGangThenEvictsItWholeOnAcknowledgement) {
  for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool", Json::parse(R"({"capacityType":"Spot","spot":{"checkpointGraceSeconds":600}})"));
  Queue("team-a");
  const PodSpec spec = PodSpec().Gpus(8).Queue("team-a");
  CreateGang("train", 4, spec);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  const std::string doomed = NodeOf("train-2");
  const std::string at = base::FormatTime(std::chrono::system_clock::now() + std::chrono::minutes(5));
  client().Patch(kube::resources::Nodes(), "", doomed, kube::PatchType::kMerge,
                 Json{{"metadata", {{"annotations", {{"gangplank.io/terminate-at", at}}}}}});
  ASSERT_TRUE(WaitFor([&] {
    for (const auto& p : Names("train", 4)) {
      if (AnnotationOf(p, "gangplank.io/checkpoint-requested").empty()) return false;
    }
    return true;
  })) << Logs();
  const std::string deadline = AnnotationOf("train-0", "gangplank.io/checkpoint-requested");
  for (const auto& p : Names("train", 4)) EXPECT_EQ(AnnotationOf(p, "gangplank.io/checkpoint-requested"), deadline) << p;
  EXPECT_TRUE(WaitFor([&] { return Said("CheckpointRequested", "checkpoint by " + deadline); })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(Members("train"), 4u) << "nothing is evicted before the acknowledgement or the deadline";

  client().Patch(kube::resources::Pods(), ns(), "train-3", kube::PatchType::kMerge,
                 Json{{"metadata", {{"annotations", {{"gangplank.io/checkpoint-done", base::FormatTime(std::chrono::system_clock::now())}}}}}});
  // Evicted through the API; KWOK completes the graceful deletion.
  ASSERT_TRUE(WaitFor([&] { return Members("train") == 0; })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("SpotReclaimed", "checkpoint done"); })) << Logs();

  CreateGang("train", 4, spec);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  for (const auto& p : Names("train", 4)) EXPECT_NE(NodeOf(p), doomed) << p;
}

// What the AWS Node Termination Handler does on a spot interruption (its taint) is a notice too; with no
// acknowledgement the gang goes whole at the checkpoint deadline.
TEST_F(ReclaimOnRealCluster, WithoutAnAcknowledgementTheGangIsEvictedWholeAtTheDeadline) {
  for (int i = 0; i < 6; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool", Json::parse(R"({"spot":{"checkpointGraceSeconds":3}})"));
  Queue("team-a");
  CreateGang("train", 4, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  client().Patch(kube::resources::Nodes(), "", NodeOf("train-0"), kube::PatchType::kMerge,
                 Json{{"spec", {{"taints", Json::array({{{"key", "aws-node-termination-handler/spot-itn"}, {"effect", "NoSchedule"}}})}}}});
  ASSERT_TRUE(WaitFor([&] { return !AnnotationOf("train-1", "gangplank.io/checkpoint-requested").empty(); })) << Logs();
  EXPECT_EQ(Members("train"), 4u);
  ASSERT_TRUE(WaitFor([&] { return Members("train") == 0; })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("SpotReclaimed", "deadline passed"); })) << Logs();
}

// A terminate-at that is not a time is reported on the node and ignored; the node keeps taking gangs.
TEST_F(ReclaimOnRealCluster, AMalformedTerminateAtIsReportedAndIgnored) {
  Node("n0", 8);
  Pool("pool");
  Queue("team-a");
  client().Patch(kube::resources::Nodes(), "", "n0", kube::PatchType::kMerge,
                 Json{{"metadata", {{"annotations", {{"gangplank.io/terminate-at", "next tuesday"}}}}}});
  const auto reported = [&] {
    for (const Json& e : client().List(kube::resources::Events(), "default").value("items", Json::array())) {
      if (e.value("reason", "") == "InvalidTerminateAt" && e.value("message", "").find("next tuesday") != std::string::npos) return true;
    }
    return false;
  };
  ASSERT_TRUE(WaitFor(reported)) << Logs();
  CreateGang("train", 1, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"train-0"}); })) << Logs();
  EXPECT_TRUE(AnnotationOf("train-0", "gangplank.io/checkpoint-requested").empty());
}

}  // namespace
}  // namespace gangplank::real_cluster
