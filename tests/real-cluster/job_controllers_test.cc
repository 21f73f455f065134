// The jobs data scientists submit, made into pods by their real controllers running beside gangplank
// (scripts/real-cluster.sh --job-controllers: JobSet v0.11.0, LeaderWorkerSet v0.7.0, KubeRay v1.5.0, the
// MPI operator v0.6.0 and Kubeflow's training operator v1.8.1, built from pinned modules by
// tools/job-controllers/build.sh): each framework's gang admitted whole in one domain,
// and when a member fails, the framework's own restart is not doubled by gangplank's, nor charged to the
// gang, nor does it cost the gang its place. KWOK keeps Job pods running (--jobs-keep-running), so a
// test decides when one fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

const kube::ResourceDescriptor kJobSets{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", true};
const kube::ResourceDescriptor kLeaderWorkerSets{"leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "LeaderWorkerSet", true};
const kube::ResourceDescriptor kRayClusters{"ray.io", "v1", "rayclusters", "RayCluster", true};
const kube::ResourceDescriptor kMpiJobs{"kubeflow.org", "v2beta1", "mpijobs", "MPIJob", true};
const kube::ResourceDescriptor kPyTorchJobs{"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", true};

class JobControllersOnRealCluster : public RealClusterTest {
 public:
  static void SetUpTestSuite() { StartControlPlane({"--job-controllers", "--jobs-keep-running"}); }

 protected:
  // A pod template of queue team-a asking 8 GPUs of gangplank, with `annotations`.
  Json Template(const Json& annotations = Json::object()) const {
    Json pod = PodObject("t", PodSpec().Gpus(8).Queue("team-a"));
    Json metadata{{"labels", pod["metadata"]["labels"]}};
    if (!annotations.empty()) metadata["annotations"] = annotations;
    return Json{{"metadata", metadata}, {"spec", pod["spec"]}};
  }

  // A JobSet of `jobs` single-pod Jobs (backoffLimit 0: a failed pod fails its Job), restarted whole by
  // its failure policy up to `max_restarts` times.
  void JobSet(const std::string& name, int jobs, int max_restarts, const Json& annotations = Json::object()) {
    Json pod = Template(annotations);
    pod["spec"]["restartPolicy"] = "Never";
    Json job{{"name", "w"},
             {"replicas", jobs},
             {"template", {{"spec", {{"parallelism", 1}, {"completions", 1}, {"backoffLimit", 0}, {"template", pod}}}}}};
    client().Create(kJobSets, ns(),
                    Json{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                         {"kind", "JobSet"},
                         {"metadata", {{"name", name}}},
                         {"spec", {{"failurePolicy", {{"maxRestarts", max_restarts}}}, {"replicatedJobs", Json::array({job})}}}});
  }

  // A LeaderWorkerSet of `groups` groups of `size` pods (leader and workers alike, with `annotations`),
  // one group per domain of `exclusive` when it names a topology key.
  void LeaderWorkerSet(const std::string& name, int groups, int size, const std::string& exclusive = "",
                       const Json& annotations = Json::object()) {
    Json metadata{{"name", name}};
    if (!exclusive.empty()) metadata["annotations"] = {{"leaderworkerset.sigs.k8s.io/exclusive-topology", exclusive}};
    client().Create(kLeaderWorkerSets, ns(),
                    Json{{"apiVersion", "leaderworkerset.x-k8s.io/v1"},
                         {"kind", "LeaderWorkerSet"},
                         {"metadata", metadata},
                         {"spec", {{"replicas", groups}, {"leaderWorkerTemplate", {{"size", size}, {"workerTemplate", Template(annotations)}}}}}});
  }

  // A RayCluster of a head and `workers` workers (one group, at most `max_workers`, at least `workers`),
  // each pod with 8 GPUs and `annotations`.
  void RayCluster(const std::string& name, int workers, const Json& annotations = Json::object(), int max_workers = 0) {
    client().Create(kRayClusters, ns(),
                    Json{{"apiVersion", "ray.io/v1"},
                         {"kind", "RayCluster"},
                         {"metadata", {{"name", name}}},
                         {"spec",
                          {{"headGroupSpec", {{"rayStartParams", Json::object()}, {"template", Template(annotations)}}},
                           {"workerGroupSpecs", RayWorkers(workers, workers, std::max(workers, max_workers), annotations)}}}});
  }

  // A RayCluster's one worker group "gpu": `replicas` workers of 8 GPUs, between `min` and `max`.
  Json RayWorkers(int replicas, int min, int max, const Json& annotations) const {
    return Json::array({{{"groupName", "gpu"},
                         {"replicas", replicas},
                         {"minReplicas", min},
                         {"maxReplicas", max},
                         {"rayStartParams", Json::object()},
                         {"template", Template(annotations)}}});
  }

  // An MPIJob (v2beta1, the MPI operator's) of a launcher and `workers` workers, each pod with 8 GPUs.
  void MpiJob(const std::string& name, int workers, const Json& annotations = Json::object()) {
    Json pod = Template(annotations);
    pod["spec"]["restartPolicy"] = "Never";
    client().Create(kMpiJobs, ns(),
                    Json{{"apiVersion", "kubeflow.org/v2beta1"},
                         {"kind", "MPIJob"},
                         {"metadata", {{"name", name}}},
                         {"spec",
                          {{"slotsPerWorker", 8},
                           {"mpiReplicaSpecs",
                            {{"Launcher", {{"replicas", 1}, {"template", pod}}}, {"Worker", {{"replicas", workers}, {"template", pod}}}}}}}});
  }

  // A PyTorchJob of a master and `workers` workers (restartPolicy OnFailure), each pod with 8 GPUs.
  void PyTorchJob(const std::string& name, int workers, const Json& annotations = Json::object()) {
    Json pod = Template(annotations);
    pod["spec"]["containers"][0]["name"] = "pytorch";  // The container the operator configures.
    auto replicas = [&](int n) { return Json{{"replicas", n}, {"restartPolicy", "OnFailure"}, {"template", pod}}; };
    client().Create(kPyTorchJobs, ns(),
                    Json{{"apiVersion", "kubeflow.org/v1"},
                         {"kind", "PyTorchJob"},
                         {"metadata", {{"name", name}}},
                         {"spec", {{"pytorchReplicaSpecs", {{"Master", replicas(1)}, {"Worker", replicas(workers)}}}}}});
  }

  // The names of this namespace's pods whose label `key` is `value` and that are not being deleted.
  std::vector<std::string> LivePods(const std::string& key, const std::string& value) {
    std::vector<std::string> out;
    for (const Json& p : Pods(key + "=" + value)) {
      if (!p["metadata"].contains("deletionTimestamp")) out.push_back(p["metadata"]["name"]);
    }
    return out;
  }

  // Exactly `n` live pods carry label `key`=`value`, all bound (and running, with `running`).
  bool AllBoundOf(const std::string& key, const std::string& value, std::size_t n, bool running = false) {
    const auto pods = LivePods(key, value);
    return pods.size() == n && AllBound(pods) && (!running || std::all_of(pods.begin(), pods.end(), [&](const auto& p) { return Running(p); }));
  }

  // A pod's metadata.uid ("" when it is missing): tells a pod its controller made again from the old one.
  std::string UidOf(const std::string& pod) {
    const auto object = Pod(pod);
    return object ? object->value("/metadata/uid"_json_pointer, std::string()) : "";
  }

  // Reports pod `name` Failed as the kubelet does when its container exits non-zero.
  void FailPod(const std::string& name) {
    client().Patch(kube::resources::Pods(), ns(), name, kube::PatchType::kMerge,
                   Json::parse(R"({"status":{"phase":"Failed","containerStatuses":[{"name":"main","image":"busybox","imageID":"",
                     "ready":false,"restartCount":0,"state":{"terminated":{"exitCode":1,"reason":"Error",
                     "startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:10Z"}}}]}})"),
                   "status");
  }

  // The reason of the gang's condition, which gangplank writes on the gang's oldest pod ("" when none of
  // `pods` has one).
  std::string WaitingReason(const std::vector<std::string>& pods) {
    for (const auto& p : pods) {
      if (std::string reason = GangCondition(p).value("reason", ""); !reason.empty()) return reason;
    }
    return "";
  }

  long JobSetRestarts(const std::string& name) {
    return client().Get(kJobSets, ns(), name).value("/status/restarts"_json_pointer, 0L);
  }

  // The clique of each pod's node, in one set.
  std::set<std::string> CliquesOf(const std::vector<std::string>& pods) {
    std::set<std::string> out;
    for (const auto& p : pods) out.insert(LabelOf(NodeOf(p), "nvidia.com/gpu.clique"));
    return out;
  }

  // Two cliques of `nodes` 8-GPU nodes, a pool over both levels, queue team-a.
  void TwoCliquesOfTwo(int nodes = 2) {
    for (int c = 0; c < 2; ++c) {
      for (int i = 0; i < nodes; ++i) Node("c" + std::to_string(c) + "-n" + std::to_string(i), 8, {{"nvidia.com/gpu.clique", "clique-" + std::to_string(c)}});
    }
    Pool("h100", Json::parse(R"({"topologyLevels":["nvidia.com/gpu.clique","kubernetes.io/hostname"]})"));
    Queue("team-a");
  }
};

// A JobSet of three one-GPU-node Jobs that must share a clique cannot start on two-node cliques: all three
// pods wait, none bound. One of two Jobs starts whole, both pods in one clique.
TEST_F(JobControllersOnRealCluster, AJobSetIsAdmittedWholeInOneCliqueOrNotAtAll) {
  TwoCliquesOfTwo();
  const Json in_one_clique{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}};
  JobSet("big", 3, 0, in_one_clique);
  ASSERT_TRUE(WaitFor([&] { return LivePods("jobset.sigs.k8s.io/jobset-name", "big").size() == 3; })) << Logs();
  const std::vector<std::string> big = LivePods("jobset.sigs.k8s.io/jobset-name", "big");
  ASSERT_TRUE(WaitFor([&] { return WaitingReason(big) == "TopologyUnsatisfiable"; })) << WaitingReason(big) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const auto& p : big) EXPECT_EQ(NodeOf(p), "") << p << " of a gang that cannot fit whole was bound";

  JobSet("train", 2, 0, in_one_clique);
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("jobset.sigs.k8s.io/jobset-name", "train", 2); })) << Logs();
  const std::vector<std::string> train = LivePods("jobset.sigs.k8s.io/jobset-name", "train");
  EXPECT_EQ(CliquesOf(train).size(), 1u) << "the JobSet's pods were split between cliques";
  for (const auto& p : train) EXPECT_EQ(NodeOf(p), PlannedNodeOf(p)) << p;
  EXPECT_TRUE(Said("Admitted", "gang " + ns() + "/JobSet/train: admitted")) << Logs();
  for (const auto& p : big) EXPECT_EQ(NodeOf(p), "") << p;
}

// A member fails; the JobSet's failure policy restarts every child Job. gangplank leaves the restart to
// it (no second restart, nothing charged) and admits the recreated pods whole in the gang's old place:
// ahead of a JobSet that has waited since before them.
TEST_F(JobControllersOnRealCluster, AJobSetsOwnRestartIsNeitherDoubledNorChargedAndKeepsItsPlace) {
  for (int i = 0; i < 2; ++i) Node("r-n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  JobSet("train", 2, 3);
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("jobset.sigs.k8s.io/jobset-name", "train", 2, true); })) << Logs();
  const std::vector<std::string> first = LivePods("jobset.sigs.k8s.io/jobset-name", "train");
  // Another JobSet waits for the same two nodes: it arrived before the restarted pods will.
  JobSet("later", 2, 0);
  ASSERT_TRUE(WaitFor([&] { return LivePods("jobset.sigs.k8s.io/jobset-name", "later").size() == 2; })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));

  FailPod(first[0]);
  ASSERT_TRUE(WaitFor([&] { return JobSetRestarts("train") >= 1; })) << Logs();
  ASSERT_TRUE(WaitFor([&] {
    const auto pods = LivePods("jobset.sigs.k8s.io/jobset-name", "train");
    return pods.size() == 2 && AllBound(pods) && pods != first;
  })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("LeftToController", "its JobSet " + ns() + "/train restarts or replaces it"); })) << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(JobSetRestarts("train"), 1) << "a second restart: gangplank evicted the recreated gang too";
  EXPECT_FALSE(Said("GangRestarted")) << "gangplank restarted a gang its JobSet restarts";
  for (const auto& p : LivePods("jobset.sigs.k8s.io/jobset-name", "later")) EXPECT_EQ(NodeOf(p), "") << p << " took the restarted gang's place";
  // Nothing charged: the pool's status keeps no restart record for the gang.
  const Json pool = client().Get(cache::resources::gpu_pools(), "", "pool");
  EXPECT_EQ(pool.dump().find("JobSet/train"), std::string::npos) << pool["status"].dump();
}

// Each LeaderWorkerSet group (a leader and its workers, from two StatefulSets) is a gang of its own,
// admitted whole in one clique as its pods' topology annotation asks: on two cliques of two nodes, the two
// groups of two take one clique each.
TEST_F(JobControllersOnRealCluster, EachLeaderWorkerSetGroupIsAGangAdmittedWholeInOneClique) {
  TwoCliquesOfTwo();
  LeaderWorkerSet("serve", 2, 2, "", Json{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}});
  for (int g = 0; g < 2; ++g) {
    const std::string index = std::to_string(g);
    ASSERT_TRUE(WaitFor([&] { return AllBoundOf("leaderworkerset.sigs.k8s.io/group-index", index, 2); }))
        << "group " << g << "\n" << Logs();
    const auto pods = LivePods("leaderworkerset.sigs.k8s.io/group-index", index);
    EXPECT_EQ(CliquesOf(pods).size(), 1u) << "group " << g << " was split between cliques";
    EXPECT_TRUE(Said("Admitted", "gang " + ns() + "/LeaderWorkerSet/serve-" + index + ": admitted " + ns() +
                                     "/LeaderWorkerSet/serve-" + index + " (16.0 GPUs, 2 pods)"))
        << Logs();
  }
}

// With an exclusive topology the controller makes a group's workers only once its leader is scheduled
// (they follow it into its domain by pod affinity): gangplank admits the leader first, in one clique of
// the key, and the workers beside it.
TEST_F(JobControllersOnRealCluster, AnExclusiveLeaderWorkerSetGroupStartsWithItsLeaderAndItsWorkersJoinItsClique) {
  TwoCliquesOfTwo();
  Create(PodObject("other", PodSpec().Gpus(8).Queue("team-a")));  // One node taken: one clique has room for two.
  ASSERT_TRUE(WaitFor([&] { return NodeOf("other") != ""; })) << Logs();
  LeaderWorkerSet("serve", 1, 2, "nvidia.com/gpu.clique");
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("leaderworkerset.sigs.k8s.io/name", "serve", 2); })) << Logs();
  const auto pods = LivePods("leaderworkerset.sigs.k8s.io/name", "serve");
  EXPECT_EQ(CliquesOf(pods).size(), 1u) << "the group was split between cliques";
  EXPECT_NE(CliquesOf(pods), CliquesOf({"other"}));
  EXPECT_TRUE(Said("Admitted", "1 of its members are made by its controller once this one is placed: their nodes are held"))
      << Logs();
}

// An exclusive topology keeps each group alone in its domain (its pods' anti-affinity against every
// other group's): two groups that would both fit one clique are admitted into one clique each, not packed
// into one, where kube-scheduler would refuse the second group's pinned leader.
TEST_F(JobControllersOnRealCluster, ExclusiveLeaderWorkerSetGroupsAreAdmittedIntoCliquesOfTheirOwn) {
  TwoCliquesOfTwo(4);
  LeaderWorkerSet("serve", 2, 2, "nvidia.com/gpu.clique");
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("leaderworkerset.sigs.k8s.io/name", "serve", 4); })) << Logs();
  const auto first = LivePods("leaderworkerset.sigs.k8s.io/group-index", "0");
  const auto second = LivePods("leaderworkerset.sigs.k8s.io/group-index", "1");
  ASSERT_EQ(CliquesOf(first).size(), 1u) << "group 0 was split between cliques";
  ASSERT_EQ(CliquesOf(second).size(), 1u) << "group 1 was split between cliques";
  EXPECT_NE(CliquesOf(first), CliquesOf(second)) << "two exclusive groups share a clique";
}

// A worker's container restarts: LeaderWorkerSet recreates the whole group (its RecreateGroupOnPodRestart
// default). gangplank leaves that to it and admits the recreated group whole again.
TEST_F(JobControllersOnRealCluster, ALeaderWorkerSetRecreatingAGroupIsLeftToIt) {
  for (int i = 0; i < 2; ++i) Node("l-n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  LeaderWorkerSet("serve", 1, 2);
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("leaderworkerset.sigs.k8s.io/name", "serve", 2, true); })) << Logs();
  const std::string leader_uid = UidOf("serve-0");
  client().Patch(kube::resources::Pods(), ns(), "serve-0-1", kube::PatchType::kStrategicMerge,
                 Json::parse(R"({"status":{"containerStatuses":[{"name":"main","restartCount":1}]}})"), "status");
  ASSERT_TRUE(WaitFor([&] {
    const std::string uid = UidOf("serve-0");
    return !uid.empty() && uid != leader_uid && AllBoundOf("leaderworkerset.sigs.k8s.io/name", "serve", 2);
  })) << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("LeftToController", "its LeaderWorkerSet " + ns() + "/serve restarts or replaces it"); })) << Logs();
  EXPECT_FALSE(Said("GangRestarted")) << Logs();
  EXPECT_TRUE(Said("Admitted", "gang " + ns() + "/LeaderWorkerSet/serve-0: admitted")) << Logs();
}

// A RayCluster's head and workers are one gang, admitted whole in one clique; a worker deleted is replaced
// by KubeRay, and gangplank leaves that to it (no restart of the cluster) and admits the replacement
// beside the rest.
TEST_F(JobControllersOnRealCluster, ARayClusterIsOneGangAndKubeRayReplacesAWorkerAlone) {
  TwoCliquesOfTwo();
  RayCluster("ray", 1, Json{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}});
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("ray.io/cluster", "ray", 2, true); })) << Logs();
  const auto first = LivePods("ray.io/cluster", "ray");
  EXPECT_EQ(CliquesOf(first).size(), 1u) << "the RayCluster was split between cliques";
  EXPECT_TRUE(Said("Admitted", "gang " + ns() + "/RayCluster/ray: admitted " + ns() + "/RayCluster/ray (16.0 GPUs, 2 pods)")) << Logs();
  const auto workers = LivePods("ray.io/node-type", "worker");
  ASSERT_EQ(workers.size(), 1u);
  const std::string head = LivePods("ray.io/node-type", "head").at(0);
  client().Remove(kube::resources::Pods(), ns(), workers[0]);
  ASSERT_TRUE(WaitFor([&] {
    const auto now = LivePods("ray.io/node-type", "worker");
    return now.size() == 1 && now[0] != workers[0] && AllBound(now);
  })) << Logs();
  EXPECT_EQ(LivePods("ray.io/node-type", "head"), std::vector<std::string>{head}) << "the head was restarted too";
  EXPECT_EQ(CliquesOf(LivePods("ray.io/cluster", "ray")).size(), 1u) << "the replacement left its cluster's clique";
  EXPECT_TRUE(WaitFor([&] { return Said("LeftToController", "its RayCluster " + ns() + "/ray restarts or replaces it"); })) << Logs();
  EXPECT_FALSE(Said("GangRestarted")) << Logs();
}

// A RayCluster scaled up admits its new worker with its gang, in its clique; scaled down, the worker's
// GPUs are free at once for another pod; deleted, it holds nothing.
TEST_F(JobControllersOnRealCluster, ARayClusterScaledUpAndDownKeepsItsCliqueAndHoldsNothingOnceDeleted) {
  TwoCliquesOfTwo(3);
  RayCluster("ray", 1, Json{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}}, 2);
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("ray.io/cluster", "ray", 2, true); })) << Logs();
  auto scale = [&](int workers) {
    client().Patch(kRayClusters, ns(), "ray", kube::PatchType::kMerge,
                   Json{{"spec", {{"workerGroupSpecs", RayWorkers(workers, 1, 2, {{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}})}}}});
  };
  scale(2);
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("ray.io/cluster", "ray", 3, true); })) << Logs();
  const auto three = LivePods("ray.io/cluster", "ray");
  ASSERT_EQ(CliquesOf(three).size(), 1u) << "the new worker left its cluster's clique";
  EXPECT_FALSE(Said("GangRestarted")) << Logs();

  std::map<std::string, std::string> node_of;
  for (const auto& p : three) node_of[p] = NodeOf(p);
  scale(1);
  ASSERT_TRUE(WaitFor([&] { return LivePods("ray.io/cluster", "ray").size() == 2; })) << Logs();
  std::string freed;
  const auto live = LivePods("ray.io/cluster", "ray");
  for (const auto& [p, node] : node_of) {
    if (std::find(live.begin(), live.end(), p) == live.end()) freed = node;
  }
  ASSERT_FALSE(freed.empty());
  Json after = PodObject("after", PodSpec().Gpus(8).Queue("team-a"));
  after["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", freed}};
  Create(after);
  EXPECT_TRUE(WaitFor([&] { return NodeOf("after") == freed; })) << "the removed worker's GPUs are still held\n" << Logs();

  const std::string head_node = NodeOf(LivePods("ray.io/node-type", "head").at(0));
  client().Remove(kRayClusters, ns(), "ray");
  ASSERT_TRUE(WaitFor([&] { return LivePods("ray.io/cluster", "ray").empty(); })) << Logs();
  Json next = PodObject("next", PodSpec().Gpus(8).Queue("team-a"));
  next["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", head_node}};
  Create(next);
  EXPECT_TRUE(WaitFor([&] { return NodeOf("next") == head_node; })) << "the deleted cluster's GPUs are still held\n" << Logs();
}

// An MPIJob's launcher and workers (the MPI operator makes the launcher a Job, the workers pods of its
// own) are one gang, admitted whole in one clique or not at all.
TEST_F(JobControllersOnRealCluster, AnMpiJobsLauncherAndWorkersAreAdmittedWholeInOneClique) {
  TwoCliquesOfTwo();
  MpiJob("big", 2, Json{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}});  // Three pods: no clique has room.
  ASSERT_TRUE(WaitFor([&] { return LivePods("training.kubeflow.org/job-name", "big").size() == 3; })) << Logs();
  ASSERT_TRUE(WaitFor([&] { return WaitingReason(LivePods("training.kubeflow.org/job-name", "big")) == "TopologyUnsatisfiable"; }))
      << Logs();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const auto& p : LivePods("training.kubeflow.org/job-name", "big")) EXPECT_EQ(NodeOf(p), "") << p;
  client().Remove(kMpiJobs, ns(), "big");
  MpiJob("pi", 1, Json{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}});
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("training.kubeflow.org/job-name", "pi", 2); })) << Logs();
  EXPECT_EQ(CliquesOf(LivePods("training.kubeflow.org/job-name", "pi")).size(), 1u);
  EXPECT_TRUE(Said("Admitted", "gang " + ns() + "/MPIJob/pi: admitted " + ns() + "/MPIJob/pi (16.0 GPUs, 2 pods)")) << Logs();
}

// A worker deleted from a running MPIJob is made again by the MPI operator under the same name, and
// gangplank leaves that to it: the new worker joins the launcher in its clique, nothing is restarted.
TEST_F(JobControllersOnRealCluster, AnMpiJobsDeletedWorkerIsMadeAgainByTheMpiOperatorAndLeftToIt) {
  TwoCliquesOfTwo();
  MpiJob("ring", 1, Json{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}});
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("training.kubeflow.org/job-name", "ring", 2, true); })) << Logs();
  const std::string uid = UidOf("ring-worker-0");
  const auto launcher = LivePods("training.kubeflow.org/job-role", "launcher");
  client().Remove(kube::resources::Pods(), ns(), "ring-worker-0");
  ASSERT_TRUE(WaitFor([&] {
    const std::string now = UidOf("ring-worker-0");
    return !now.empty() && now != uid && !NodeOf("ring-worker-0").empty();
  }, std::chrono::seconds(120))) << Logs();
  EXPECT_EQ(LivePods("training.kubeflow.org/job-role", "launcher"), launcher) << "the launcher was restarted too";
  EXPECT_EQ(CliquesOf(LivePods("training.kubeflow.org/job-name", "ring")).size(), 1u) << "the new worker left its job's clique";
  EXPECT_TRUE(WaitFor([&] { return Said("LeftToController", "its MPIJob " + ns() + "/ring restarts or replaces it"); })) << Logs();
  EXPECT_FALSE(Said("GangRestarted")) << Logs();
}

// A PyTorchJob's master and workers are one gang, admitted whole in one clique; a worker deleted is made
// again by the training operator, and gangplank leaves that to it and admits the new pod beside the rest.
TEST_F(JobControllersOnRealCluster, APyTorchJobIsOneGangAndTheTrainingOperatorRemakesAWorker) {
  TwoCliquesOfTwo();
  PyTorchJob("train", 1, Json{{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}});
  ASSERT_TRUE(WaitFor([&] { return AllBoundOf("training.kubeflow.org/job-name", "train", 2, true); })) << Logs();
  EXPECT_EQ(CliquesOf(LivePods("training.kubeflow.org/job-name", "train")).size(), 1u);
  EXPECT_TRUE(Said("Admitted", "gang " + ns() + "/PyTorchJob/train: admitted " + ns() + "/PyTorchJob/train (16.0 GPUs, 2 pods)")) << Logs();
  const std::string uid = UidOf("train-worker-0");
  client().Remove(kube::resources::Pods(), ns(), "train-worker-0");
  ASSERT_TRUE(WaitFor([&] {
    const std::string now = UidOf("train-worker-0");
    return !now.empty() && now != uid && !NodeOf("train-worker-0").empty();
  })) << Logs();
  EXPECT_EQ(CliquesOf(LivePods("training.kubeflow.org/job-name", "train")).size(), 1u) << "the new worker left its job's clique";
  EXPECT_TRUE(WaitFor([&] { return Said("LeftToController", "its PyTorchJob " + ns() + "/train restarts or replaces it"); })) << Logs();
  EXPECT_FALSE(Said("GangRestarted")) << Logs();
}

}  // namespace
}  // namespace gangplank::real_cluster
