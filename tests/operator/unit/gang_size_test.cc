// Gang derivation from each owner kind: how many members a gang needs, and the errors that name the
// field when the owner cannot tell.
#include "operator/gangs/gang_size.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cache/objects/decode_error.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

cache::GangIdentity Id(const std::string& kind, const std::string& name = "x") {
  cache::GangIdentity g;
  g.source = kind == "PodGroup" ? cache::GangSource::kPodGroup : cache::GangSource::kOwner;
  g.kind = kind;
  g.name = name;
  return g;
}

int Size(const std::string& kind, const char* object) { return GangSizeOf(Id(kind), "ml", Json::parse(object)).min_members; }

std::string Error(const std::string& kind, const char* object) {
  try {
    GangSizeOf(Id(kind), "ml", Json::parse(object));
  } catch (const cache::DecodeError& e) {
    return e.what();
  }
  return "no error";
}

GangSize Native(const char* object) {
  cache::GangIdentity g;
  g.source = cache::GangSource::kNativePodGroup;
  g.kind = "PodGroup";
  g.name = "x";
  return GangSizeOf(g, "ml", Json::parse(object));
}

std::string NativeError(const char* object) {
  try {
    Native(object);
  } catch (const cache::DecodeError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GangSize, NativePodGroupGangMinCountAndItsTerms) {
  const GangSize g = Native(R"({"metadata":{"uid":"pg-uid"},"spec":{"schedulingPolicy":{"gang":{"minCount":4}},
      "schedulingConstraints":{"topology":[{"key":"nvidia.com/gpu.clique"}]},
      "priorityClassName":"high","priority":1000,"disruptionMode":{"all":{}}}})");
  EXPECT_EQ(g.min_members, 4);
  EXPECT_FALSE(g.singly);
  EXPECT_EQ(g.source, "PodGroup ml/x spec.schedulingPolicy.gang.minCount");
  EXPECT_EQ(g.topology_key, "nvidia.com/gpu.clique");
  EXPECT_EQ(g.priority, 1000);
  EXPECT_TRUE(g.disrupt_whole);
  EXPECT_EQ(g.uid, "pg-uid");  // Events on the PodGroup carry it, so kubectl describe finds them.
  const GangSize plain = Native(R"({"spec":{"schedulingPolicy":{"gang":{"minCount":2}},"disruptionMode":{"single":{}}}})");
  EXPECT_EQ(plain.topology_key, "");
  EXPECT_EQ(plain.priority, std::nullopt);
  EXPECT_FALSE(plain.disrupt_whole);
}

TEST(GangSize, NativeBasicGroupIsEachPodOnItsOwn) {
  const GangSize g = Native(R"({"spec":{"schedulingPolicy":{"basic":{}}}})");
  EXPECT_EQ(g.min_members, 1);
  EXPECT_TRUE(g.singly);
  EXPECT_EQ(g.source, "PodGroup ml/x spec.schedulingPolicy.basic (each pod on its own)");
}

TEST(GangSize, NativePodGroupErrorsNameTheField) {
  EXPECT_EQ(NativeError(R"({"spec":{}})"), "PodGroup ml/x spec.schedulingPolicy: missing");
  EXPECT_EQ(NativeError(R"({"spec":{"schedulingPolicy":{}}})"), "PodGroup ml/x spec.schedulingPolicy: expected exactly one of basic and gang");
  EXPECT_EQ(NativeError(R"({"spec":{"schedulingPolicy":{"basic":{},"gang":{"minCount":2}}}})"),
            "PodGroup ml/x spec.schedulingPolicy: expected exactly one of basic and gang");
  EXPECT_EQ(NativeError(R"({"spec":{"schedulingPolicy":{"gang":{}}}})"), "PodGroup ml/x spec.schedulingPolicy.gang.minCount: missing");
  EXPECT_EQ(NativeError(R"({"spec":{"schedulingPolicy":{"gang":{"minCount":0}}}})"),
            "PodGroup ml/x spec.schedulingPolicy.gang.minCount: the gang has no members");
  EXPECT_EQ(NativeError(R"({"spec":{"schedulingPolicy":{"gang":{"minCount":2}},"schedulingConstraints":{"topology":[{}]}}})"),
            "PodGroup ml/x spec.schedulingConstraints.topology[0].key: expected a label key");
  EXPECT_EQ(NativeError(R"({"spec":{"schedulingPolicy":{"gang":{"minCount":2}},"priority":"high"}})"),
            "PodGroup ml/x spec.priority: expected a whole number");
}

TEST(GangSize, AWorkloadReadsInKubectlDescribesWords) {
  EXPECT_EQ(WorkloadWording("ml", Json::parse(R"({"metadata":{"name":"train"},"spec":{
      "controllerRef":{"apiGroup":"batch","kind":"Job","name":"train"},
      "podGroupTemplates":[{"name":"workers"},{"name":"launcher"}]}})")),
            "Workload ml/train (Pod Group Templates: workers, launcher; Controlled By: Job/train)");
  EXPECT_EQ(WorkloadWording("ml", Json::parse(R"({"metadata":{"name":"bare"},"spec":{}})")), "Workload ml/bare");
}

TEST(GangSize, PodGroupMinMember) {
  EXPECT_EQ(Size("PodGroup", R"({"spec":{"minMember":6}})"), 6);
  EXPECT_EQ(Error("PodGroup", R"({"spec":{}})"), "PodGroup ml/x spec.minMember: missing");
  EXPECT_EQ(Error("PodGroup", R"({"spec":{"minMember":0}})"), "PodGroup ml/x spec.minMember: the gang has no members");
}

TEST(GangSize, JobParallelismCappedByCompletions) {
  EXPECT_EQ(Size("Job", R"({"spec":{"parallelism":8,"completions":8,"completionMode":"Indexed"}})"), 8);
  EXPECT_EQ(Size("Job", R"({"spec":{"parallelism":8,"completions":3}})"), 3);
  EXPECT_EQ(Size("Job", R"({"spec":{}})"), 1);  // Defaults: parallelism 1.
  EXPECT_EQ(Error("Job", R"({"spec":{"parallelism":"eight"}})"),
            "Job ml/x spec.parallelism: expected a whole number from 0 to 100000");
  const GangSize s = GangSizeOf(Id("Job", "train"), "ml", Json::parse(R"({"spec":{"parallelism":4}})"));
  EXPECT_EQ(s.source, "Job ml/train spec.parallelism");
}

TEST(GangSize, JobSetReplicatedJobs) {
  EXPECT_EQ(Size("JobSet", R"({"spec":{"replicatedJobs":[
      {"name":"driver","replicas":1,"template":{"spec":{"parallelism":1}}},
      {"name":"workers","replicas":2,"template":{"spec":{"parallelism":4}}}]}})"),
            9);
  EXPECT_EQ(Error("JobSet", R"({"spec":{}})"), "JobSet ml/x spec.replicatedJobs: missing");
}

TEST(GangSize, KubeflowJobsSumTheirReplicaSpecs) {
  EXPECT_EQ(Size("PyTorchJob", R"({"spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":7}}}})"), 8);
  EXPECT_EQ(Size("MPIJob", R"({"spec":{"mpiReplicaSpecs":{"Launcher":{"replicas":1},"Worker":{"replicas":4}}}})"), 5);
  EXPECT_EQ(Size("TFJob", R"({"spec":{"tfReplicaSpecs":{"Chief":{},"Worker":{"replicas":3}}}})"), 4);  // replicas default 1
  // minAvailable wins (elastic jobs).
  EXPECT_EQ(Size("PyTorchJob", R"({"spec":{"runPolicy":{"schedulingPolicy":{"minAvailable":2}},
                                   "pytorchReplicaSpecs":{"Worker":{"replicas":8}}}})"),
            2);
  EXPECT_EQ(Error("PyTorchJob", R"({"spec":{"runPolicy":{}}})"), "PyTorchJob ml/x spec: no *ReplicaSpecs");
}

// An elastic PyTorchJob starts at its minimum of workers (torchrun's --nnodes min); more join it later.
TEST(GangSize, AnElasticPyTorchJobStartsWithItsMinimumOfWorkers) {
  const GangSize elastic = GangSizeOf(Id("PyTorchJob", "train"), "ml", Json::parse(R"({"spec":{
      "elasticPolicy":{"minReplicas":2,"maxReplicas":8},
      "pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":6}}}})"));
  EXPECT_EQ(elastic.min_members, 3);
  EXPECT_EQ(elastic.source, "PyTorchJob ml/train spec.pytorchReplicaSpecs with spec.elasticPolicy.minReplicas workers");
  EXPECT_EQ(Size("PyTorchJob", R"({"spec":{"elasticPolicy":{"maxReplicas":4},"pytorchReplicaSpecs":{"Worker":{"replicas":4}}}})"), 4)
      << "no minimum: every replica";
  EXPECT_EQ(Error("PyTorchJob", R"({"spec":{"elasticPolicy":{"minReplicas":-1},"pytorchReplicaSpecs":{"Worker":{}}}})"),
            "PyTorchJob ml/x spec.elasticPolicy.minReplicas: expected a whole number from 0 to 100000");
}

TEST(GangSize, RayClusterHeadAndWorkerGroups) {
  EXPECT_EQ(Size("RayCluster", R"({"spec":{"headGroupSpec":{},"workerGroupSpecs":[
      {"groupName":"gpu","replicas":4,"minReplicas":2,"maxReplicas":8},
      {"groupName":"small","minReplicas":1}]}})"),
            6);  // head + 4 + 1 (replicas defaults to minReplicas)
  EXPECT_EQ(Size("RayCluster", R"({"spec":{"headGroupSpec":{},"workerGroupSpecs":[{"replicas":20,"maxReplicas":3}]}})"), 4);
}

TEST(GangSize, ALeaderWorkerSetGroupIsItsLeaderAndWorkers) {
  const GangSize group = GangSizeOf(Id("LeaderWorkerSet", "serve"), "ml", Json::parse(
      R"({"spec":{"replicas":3,"startupPolicy":"LeaderCreated","leaderWorkerTemplate":{"size":4}}})"));
  EXPECT_EQ(group.min_members, 4);  // Per group, whatever spec.replicas says.
  EXPECT_FALSE(group.singly);
  EXPECT_EQ(group.topology_key, "");
  EXPECT_EQ(group.later_members, 0);
  EXPECT_FALSE(group.exclusive_domain);
  EXPECT_EQ(group.source, "LeaderWorkerSet ml/serve spec.leaderWorkerTemplate.size");
  EXPECT_EQ(Size("LeaderWorkerSet", R"({"spec":{"leaderWorkerTemplate":{}}})"), 1);  // size defaults to 1
  EXPECT_EQ(Error("LeaderWorkerSet", R"({"spec":{"leaderWorkerTemplate":{"size":0}}})"),
            "LeaderWorkerSet ml/x spec.leaderWorkerTemplate.size: the gang has no members");
  EXPECT_EQ(Error("LeaderWorkerSet", R"({"spec":{"leaderWorkerTemplate":{"size":"4"}}})"),
            "LeaderWorkerSet ml/x spec.leaderWorkerTemplate.size: expected a whole number from 0 to 100000");
}

// Where the controller makes the workers only once the leader is scheduled (an exclusive topology) or
// runs (LeaderReady), holding the leader for them would deadlock: the leader goes first.
TEST(GangSize, ALeaderWorkerSetGroupWhoseWorkersFollowTheLeaderStartsWithTheLeader) {
  const GangSize exclusive = GangSizeOf(Id("LeaderWorkerSet", "serve"), "ml", Json::parse(R"({
      "metadata":{"annotations":{"leaderworkerset.sigs.k8s.io/exclusive-topology":"nvidia.com/gpu.clique"}},
      "spec":{"leaderWorkerTemplate":{"size":4}}})"));
  EXPECT_EQ(exclusive.min_members, 1);
  EXPECT_FALSE(exclusive.singly) << "the workers join the running leader together";
  EXPECT_EQ(exclusive.topology_key, "nvidia.com/gpu.clique");
  EXPECT_EQ(exclusive.later_members, 3) << "planned with the leader, so it starts only where they fit too";
  EXPECT_TRUE(exclusive.exclusive_domain) << "no other group in its domain";
  EXPECT_EQ(exclusive.source, "LeaderWorkerSet ml/serve exclusive-topology (the workers are made once the leader is "
                              "scheduled: the leader first, then its 3 workers beside it)");
  const GangSize ready = GangSizeOf(Id("LeaderWorkerSet"), "ml", Json::parse(
      R"({"spec":{"startupPolicy":"LeaderReady","leaderWorkerTemplate":{"size":2}}})"));
  EXPECT_EQ(ready.min_members, 1);
  EXPECT_EQ(ready.topology_key, "");
  EXPECT_NE(ready.source.find("LeaderReady (the workers are made once the leader runs"), std::string::npos) << ready.source;
}

TEST(GangSize, AnnotationOnGangLabelledPods) {
  cache::PodInfo pod;
  EXPECT_FALSE(GangSizeAnnotation(pod).has_value());
  pod.annotations["gangplank.io/gang-size"] = "8";
  EXPECT_EQ(GangSizeAnnotation(pod), 8);
  pod.annotations["gangplank.io/gang-size"] = "eight";
  EXPECT_THROW(GangSizeAnnotation(pod), cache::DecodeError);
  pod.annotations["gangplank.io/gang-size"] = "0";
  EXPECT_THROW(GangSizeAnnotation(pod), cache::DecodeError);
}

}  // namespace
}  // namespace gangplank::op
