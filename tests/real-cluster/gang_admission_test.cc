// Gangs on the real control plane: the real API server runs the operator's webhook, the real
// kube-scheduler calls the extender and binds, KWOK runs the pods. A gang is held until it fits whole,
// then lands in one topology domain on its planned nodes; gangs made by a real Job controller and by a
// scheduler-plugins PodGroup are admitted whole; a missing queue is said and then healed.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

using GangsOnRealCluster = RealClusterTest;

TEST_F(GangsOnRealCluster, TheWebhookGatesGangplankPodsOnlyAndKeepsThemOffEveryNode) {
  Node("solo-n0", 8);
  // No pool or queue yet: a gangplank pod is created gated and stays so; another scheduler's is not touched.
  const Json stored = Create(PodObject("gangplank-pod", PodSpec().Gpus(1).Queue("nobody")));
  ASSERT_EQ(stored.value("/spec/schedulingGates/0/name"_json_pointer, std::string()), "gangplank.io/admission") << stored.dump();
  ExemptFromFence();  // a system pod bound at creation (tenant_fence_test.cc: refused elsewhere)
  const Json other = Create(PodObject("other-pod", PodSpec().Gpus(1).BoundTo("solo-n0")));
  EXPECT_FALSE(other["spec"].contains("schedulingGates")) << other.dump();
  EXPECT_TRUE(WaitFor([&] { return Running("other-pod"); })) << "KWOK did not run a pod bound at creation";
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_TRUE(Gated("gangplank-pod"));
  EXPECT_EQ(NodeOf("gangplank-pod"), "");
  // kube-scheduler reports the gate as the reason (its own condition).
  const auto pod = Pod("gangplank-pod");
  ASSERT_TRUE(pod);
  bool gated_condition = false;
  for (const Json& c : pod->value("/status/conditions"_json_pointer, Json::array())) {
    gated_condition = gated_condition || (c.value("type", "") == "PodScheduled" && c.value("reason", "") == "SchedulingGated");
  }
  EXPECT_TRUE(gated_condition) << pod->dump();
}

// Two NVLink cliques of four 8-GPU nodes; another scheduler's pods take one node of clique 0 and half a
// node of clique 1, so neither holds a 4 x 8-GPU gang that must share a clique. It waits whole and says
// why; when clique 1 frees up, kube-scheduler binds all four there, each on its planned node.
TEST_F(GangsOnRealCluster, AGangIsHeldUntilItFitsWholeThenKubeSchedulerBindsItInOneClique) {
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < 4; ++i) {
      Node("c" + std::to_string(c) + "-n" + std::to_string(i), 8, {{"nvidia.com/gpu.clique", "clique-" + std::to_string(c)}});
    }
  }
  ExemptFromFence();  // the other scheduler's pods are system pods of an exempt namespace
  Create(PodObject("other-0", PodSpec().Gpus(8).BoundTo("c0-n0")));
  Create(PodObject("other-1", PodSpec().Gpus(4).BoundTo("c1-n1")));
  Pool("h100", Json::parse(R"({"topologyLevels":["nvidia.com/gpu.clique","kubernetes.io/hostname"]})"));
  Queue("team-a");
  const PodSpec first =
      PodSpec().Gpus(8).Queue("team-a").Gang("train", 4).Annotation("gangplank.io/topology-required", "nvidia.com/gpu.clique");
  for (int i = 0; i < 3; ++i) Create(PodObject("train-" + std::to_string(i), first));
  ASSERT_TRUE(WaitFor([&] {
    return GangCondition("train-0").value("message", "") == "3 of 4 pods exist (size from annotation gangplank.io/gang-size)";
  })) << GangCondition("train-0").dump() << Logs();
  EXPECT_EQ(GangCondition("train-0").value("reason", ""), "GangIncomplete");
  Create(PodObject("train-3", first));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "TopologyUnsatisfiable"; })) << Logs();
  EXPECT_EQ(GangCondition("train-0").value("message", ""), "needs 32 GPUs in one NVLink domain; largest free is 28");
  for (const auto& p : Names("train", 4)) EXPECT_TRUE(Gated(p)) << p;

  ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "other-1"));
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
  ExpectOnOwnPlannedNodesIn(Names("train", 4), "nvidia.com/gpu.clique", "clique-1");
  EXPECT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "Admitted"; })) << Logs();
  EXPECT_TRUE(WaitFor([&] {
    for (const auto& p : Names("train", 4)) {
      if (!Running(p)) return false;
    }
    return true;
  })) << "KWOK did not run the gang's pods";
  // kube-scheduler, not gangplank, bound them: its Scheduled events name the nodes.
  EXPECT_TRUE(WaitFor([&] { return Said("Scheduled", "Successfully assigned " + ns() + "/train-0 to " + NodeOf("train-0")); }));
}

// The README's walk-through as a new user runs it: a gang's pods arrive one by one, so the condition
// says "1 of 4 pods exist" and then holds back the numbers-only rewrites; when the last pod comes, the
// round that admits the gang says so on the condition and in an Event at once, not after the rewrite
// interval (30 s) those held-back messages wait out.
TEST_F(GangsOnRealCluster, TheConditionSaysAdmittedInTheRoundThatAdmitsTheGang) {
  for (int i = 0; i < 4; ++i) Node("w-n" + std::to_string(i), 8);
  Pool("walk");
  Queue("team-a");
  const PodSpec member = PodSpec().Gpus(8).Queue("team-a").Gang("train", 4);
  Create(PodObject("train-0", member));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "GangIncomplete"; })) << Logs();
  for (int i = 1; i < 3; ++i) Create(PodObject("train-" + std::to_string(i), member));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // "3 of 4" now waits on the rewrite timer.
  Create(PodObject("train-3", member));
  const auto created = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitFor([&] { return GangCondition("train-0").value("reason", "") == "Admitted"; }, std::chrono::seconds(10)))
      << GangCondition("train-0").dump() << Logs();
  EXPECT_EQ(GangCondition("train-0").value("status", ""), "True");
  EXPECT_TRUE(WaitFor([&] { return Said("Admitted"); }, std::chrono::seconds(5))) << Logs();
  EXPECT_LT(std::chrono::steady_clock::now() - created, std::chrono::seconds(15));
  EXPECT_TRUE(WaitFor([&] { return AllBound(Names("train", 4)); })) << Logs();
}

TEST_F(GangsOnRealCluster, APodNamingAMissingQueueSaysSoAndIsAdmittedWhenTheQueueAppears) {
  Node("n0", 8);
  Pool("pool");
  Create(PodObject("lost", PodSpec().Gpus(1).Queue("ghost-queue")));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("lost").value("reason", "") == "QueueNotFound"; })) << Logs();
  EXPECT_EQ(GangCondition("lost").value("message", ""), "queue ghost-queue does not exist");
  EXPECT_EQ(GangCondition("lost").value("status", ""), "False");
  Queue("ghost-queue");
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("lost").empty(); })) << Logs();
  EXPECT_EQ(NodeOf("lost"), "n0");
}

// Pods without a queue label belong to their namespace's queue (its gangplank.io/queue label): the
// operator admits them into it and the Queue's status counts them.
TEST_F(GangsOnRealCluster, UnlabelledPodsAreAdmittedIntoTheirNamespacesQueue) {
  Node("n0", 8);
  Pool("pool");
  Queue("team-b");
  client().Patch(kube::resources::Namespaces(), "", ns(), kube::PatchType::kMerge,
                 Json{{"metadata", {{"labels", {{"gangplank.io/queue", "team-b"}}}}}});
  Create(PodObject("plain", PodSpec().Gpus(4)));
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("plain").empty(); })) << Logs();
  const auto& queues = cache::resources::queues();
  EXPECT_TRUE(WaitFor([&] { return client().Get(queues, "", "team-b").value("/status/usedGPUs"_json_pointer, 0.0) == 4; }))
      << client().Get(queues, "", "team-b").dump();
}

// A pod no admission holds back (gangplank's own namespace is outside the webhook) still meets the
// extender's queue limit when kube-scheduler filters it, and the user reads the extender's reason in
// kube-scheduler's FailedScheduling event.
TEST_F(GangsOnRealCluster, TheExtendersQueueLimitReachesTheUserInKubeSchedulersEvent) {
  Node("n0", 8);
  Node("n1", 8);
  Pool("pool");
  Queue("capped", Json{{"namespaces", {ns(), "gangplank-system"}}, {"pools", Json::parse(R"([{"name":"pool","limitGPUs":8}])")}});
  Create(PodObject("first", PodSpec().Gpus(8).Queue("capped")));
  ASSERT_TRUE(WaitFor([&] { return !NodeOf("first").empty(); })) << Logs();
  Json over = PodObject("over", PodSpec().Gpus(4).Queue("capped"));
  over["metadata"]["namespace"] = "gangplank-system";
  client().Create(kube::resources::Pods(), "gangplank-system", over);
  const std::string reason = "queue capped at its limit of 8 GPUs in pool pool (uses 8, pod needs 4)";
  const auto said = [&] {
    for (const Json& e : client().List(kube::resources::Events(), "gangplank-system").value("items", Json::array())) {
      if (e.value("/involvedObject/name"_json_pointer, std::string()) == "over" && e.value("reason", "") == "FailedScheduling" &&
          e.value("message", "").find(reason) != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(WaitFor(said)) << Logs();
  const auto stored = client().TryGet(kube::resources::Pods(), "gangplank-system", "over");
  EXPECT_TRUE(stored && stored->value("/spec/nodeName"_json_pointer, std::string()).empty());
  client().Remove(kube::resources::Pods(), "gangplank-system", "over");
}

// A batch/v1 Job of three 8-GPU workers: the Job controller makes the pods, the operator takes the
// gang's size from the Job (parallelism) and admits the three at once; KWOK completes them and the
// Job controller marks the Job complete.
TEST_F(GangsOnRealCluster, AJobsPodsAreAdmittedWholeAndTheJobCompletes) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  // The Job's workers need 24 GPUs; 16 are taken until the blocker goes, so they wait whole.
  ExemptFromFence();  // the blockers are system pods of an exempt namespace
  Create(PodObject("blocker-0", PodSpec().Gpus(8).BoundTo("n0")));
  Create(PodObject("blocker-1", PodSpec().Gpus(8).BoundTo("n1")));
  const Json job = Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "trainer"},
    "spec": {
      "parallelism": 3, "completions": 3, "backoffLimit": 0,
      "template": {
        "metadata": {"labels": {"gangplank.io/queue": "team-a"}},
        "spec": {
          "schedulerName": "gangplank", "restartPolicy": "Never",
          "containers": [{"name": "worker", "image": "trainer",
            "resources": {"requests": {"cpu": "4", "nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}}]
        }
      }
    }
  })");
  client().Create(kube::ResourceDescriptor{"batch", "v1", "jobs", "Job", true}, ns(), job);
  ASSERT_TRUE(WaitFor([&] { return Pods("job-name=trainer").size() == 3; })) << "the Job controller made no pods";
  ASSERT_TRUE(WaitFor([&] { return GangCondition(Pods("job-name=trainer")[0]["metadata"]["name"]).value("reason", "") != ""; }))
      << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const Json& p : Pods("job-name=trainer")) {
    EXPECT_TRUE(p.value("/spec/nodeName"_json_pointer, std::string()).empty()) << "a worker started before its gang fit";
  }
  ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "blocker-0"));
  ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "blocker-1"));
  // KWOK runs and completes the workers; the Job controller counts three successes.
  ASSERT_TRUE(WaitFor([&] {
    const Json j = client().Get(kube::ResourceDescriptor{"batch", "v1", "jobs", "Job", true}, ns(), "trainer");
    return j.value("/status/succeeded"_json_pointer, 0) == 3;
  }, std::chrono::seconds(90))) << Logs();
  std::set<std::string> admissions;
  for (const Json& p : Pods("job-name=trainer")) {
    admissions.insert(p.value("/metadata/annotations"_json_pointer, Json::object()).value("gangplank.io/admission-id", ""));
  }
  EXPECT_EQ(admissions.size(), 1u) << "the three workers were admitted in more than one admission";
  EXPECT_NE(*admissions.begin(), "");
}

// scheduler-plugins' PodGroup (its CRD as scheduler-plugins installs it): minMember 3, so two pods wait
// and the third releases all three.
TEST_F(GangsOnRealCluster, APodGroupsPodsWaitForMinMemberThenLandTogether) {
  const auto applied = Kubectl(cluster().kubeconfig(), {"apply", "--server-side", "-f", GANGPLANK_SOURCE_DIR "/tests/real-cluster/testdata/podgroup.crd.yaml"});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  ASSERT_EQ(Kubectl(cluster().kubeconfig(), {"wait", "--for", "condition=Established", "--timeout", "60s", "crd/podgroups.scheduling.x-k8s.io"}).exit_code, 0);
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  const auto group = Kubectl(cluster().kubeconfig(), {"create", "-n", ns(), "-f", "-"},
                             R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"pg"},"spec":{"minMember":3}})");
  ASSERT_EQ(group.exit_code, 0) << group.err;
  const PodSpec spec = PodSpec().Gpus(8).Queue("team-a").Label("scheduling.x-k8s.io/pod-group", "pg");
  Create(PodObject("pg-0", spec));
  Create(PodObject("pg-1", spec));
  ASSERT_TRUE(WaitFor([&] {
    return GangCondition("pg-0").value("message", "") == "2 of 3 pods exist (size from PodGroup " + ns() + "/pg spec.minMember)";
  })) << GangCondition("pg-0").dump() << Logs();
  EXPECT_EQ(GangCondition("pg-0").value("reason", ""), "GangIncomplete");
  Create(PodObject("pg-2", spec));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"pg-0", "pg-1", "pg-2"}); })) << Logs();
}

// Review (issue 31): gangplank.io/expected-runtime was believed and never enforced, so a gang could
// backfill onto nodes reserved for another team's large gang on a short declared runtime and stay. Now
// the plan carries the declared runtime as spec.activeDeadlineSeconds (Kubernetes ends the pod then; the
// field can be lowered but never raised or removed, so its owner cannot take it back). Eight 8-GPU nodes:
// six full and two half full with pods outside gangplank, charged to the namespace's queue; a 2 x 8-GPU
// gang waits and reserves the two half-full nodes; a 4-GPU gang that declares ten minutes starts there,
// one that declares nothing does not.
TEST_F(GangsOnRealCluster, ABackfillOntoReservedNodesIsHeldToItsDeclaredRuntime) {
  // Two cliques: the reservation takes the one already holding most of what the gang needs (bf-6, bf-7).
  for (int i = 0; i < 8; ++i) Node("bf-" + std::to_string(i), 8, {{"nvidia.com/gpu.clique", i < 6 ? "full" : "half"}});
  Pool("pool", Json{{"admission", {{"reserveAfterSeconds", 1}}},
                    {"topologyLevels", {"nvidia.com/gpu.clique", "kubernetes.io/hostname"}}});
  Queue("team-b");
  ExemptFromFence();
  client().Patch(kube::resources::Namespaces(), "", ns(), kube::PatchType::kMerge,
                 Json{{"metadata", {{"labels", {{"gangplank.io/queue", "team-b"}}}}}});
  for (int i = 0; i < 8; ++i) Create(PodObject("held-" + std::to_string(i), PodSpec().Gpus(i < 6 ? 8 : 4).BoundTo("bf-" + std::to_string(i))));
  CreateGang("large", 2, PodSpec().Gpus(8));
  ASSERT_TRUE(WaitFor([&] { return GangCondition("large-0").value("message", "").find("being drained") != std::string::npos; }))
      << GangCondition("large-0").dump() << Logs();

  CreateGang("open-ended", 1, PodSpec().Gpus(4));
  PodSpec quick = PodSpec().Gpus(4);
  quick.annotations["gangplank.io/expected-runtime"] = "600";
  CreateGang("quick", 1, quick);
  ASSERT_TRUE(WaitFor([&] { return !Gated("quick-0"); })) << GangCondition("quick-0").dump() << Logs();
  EXPECT_TRUE(WaitFor([&] {
    return GangCondition("quick-0").value("message", "").find("on nodes reserved for another gang") != std::string::npos;
  })) << GangCondition("quick-0").dump();
  EXPECT_EQ(Pod("quick-0")->value("/spec/activeDeadlineSeconds"_json_pointer, 0), 600);
  EXPECT_TRUE(WaitFor([&] { return NodeOf("quick-0") == "bf-6" || NodeOf("quick-0") == "bf-7"; })) << NodeOf("quick-0");
  EXPECT_TRUE(Gated("open-ended-0")) << "no declared end: it may not use the reservation";
  EXPECT_FALSE(Pod("open-ended-0")->contains("/spec/activeDeadlineSeconds"_json_pointer));

  // The owner cannot take the limit back: Kubernetes refuses a later or no deadline.
  Json longer{{"spec", {{"activeDeadlineSeconds", 86400}}}};
  EXPECT_THROW(client().Patch(kube::resources::Pods(), ns(), "quick-0", kube::PatchType::kMerge, longer), std::exception);
}

}  // namespace
}  // namespace gangplank::real_cluster
