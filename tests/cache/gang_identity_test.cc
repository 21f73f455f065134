#include "cache/objects/gang_identity.h"

#include <gtest/gtest.h>

namespace gangplank::cache {
namespace {

PodInfo Pod(std::map<std::string, std::string> labels, std::optional<OwnerRef> owner = std::nullopt) {
  PodInfo p;
  p.name = "p";
  p.namespace_ = "ml";
  p.labels = std::move(labels);
  p.controller = std::move(owner);
  return p;
}

TEST(GangIdentity, GangLabelComesFirst) {
  const GangIdentity g = GangIdentityOf(Pod({{"gangplank.io/gang", "g1"}, {"scheduling.x-k8s.io/pod-group", "pg"}},
                                            OwnerRef{"batch/v1", "Job", "j", "u"}));
  EXPECT_EQ(g.source, GangSource::kGangLabel);
  EXPECT_EQ(g.key, "ml/g1");
}

// spec.schedulingGroup is what kube-scheduler's PodGroup cycle groups by: it wins over every label.
TEST(GangIdentity, ANativePodGroupComesBeforeAnyLabel) {
  PodInfo p = Pod({{"gangplank.io/gang", "g1"}, {"scheduling.x-k8s.io/pod-group", "pg"}}, OwnerRef{"batch/v1", "Job", "j", "u"});
  p.pod_group_name = "workers";
  const GangIdentity g = GangIdentityOf(p);
  EXPECT_EQ(g.source, GangSource::kNativePodGroup);
  EXPECT_EQ(g.key, "ml/PodGroup.scheduling.k8s.io/workers");
  EXPECT_EQ(g.api_version, "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(g.kind, "PodGroup");
  EXPECT_EQ(g.name, "workers");
  // A scheduler-plugins PodGroup of the same name is another gang.
  EXPECT_NE(g.key, GangIdentityOf(Pod({{"scheduling.x-k8s.io/pod-group", "workers"}})).key);
}

TEST(GangIdentity, PodGroupLabelNamesThePodGroup) {
  const GangIdentity g = GangIdentityOf(Pod({{"scheduling.x-k8s.io/pod-group", "pg"}}));
  EXPECT_EQ(g.source, GangSource::kPodGroup);
  EXPECT_EQ(g.key, "ml/PodGroup/pg");
  EXPECT_EQ(g.api_version, "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(g.name, "pg");
}

TEST(GangIdentity, JobSetWinsOverItsChildJob) {
  const GangIdentity g = GangIdentityOf(Pod({{"jobset.sigs.k8s.io/jobset-name", "js"}, {"batch.kubernetes.io/job-name", "js-w-0"}},
                                            OwnerRef{"batch/v1", "Job", "js-w-0", "u"}));
  EXPECT_EQ(g.source, GangSource::kOwner);
  EXPECT_EQ(g.key, "ml/JobSet/js");
  EXPECT_EQ(g.api_version, "jobset.x-k8s.io/v1alpha2");
}

TEST(GangIdentity, KubeflowJobsByOperatorName) {
  GangIdentity g = GangIdentityOf(Pod({{"training.kubeflow.org/job-name", "bert"},
                                       {"training.kubeflow.org/operator-name", "pytorchjob-controller"}},
                                      OwnerRef{"kubeflow.org/v1", "PyTorchJob", "bert", "u"}));
  EXPECT_EQ(g.key, "ml/PyTorchJob/bert");
  EXPECT_EQ(g.kind, "PyTorchJob");
  // An MPIJob's launcher runs in a Job it owns: the operator name still says MPIJob.
  g = GangIdentityOf(Pod({{"training.kubeflow.org/job-name", "hvd"}, {"training.kubeflow.org/operator-name", "mpi-operator"}},
                         OwnerRef{"batch/v1", "Job", "hvd-launcher", "u"}));
  EXPECT_EQ(g.key, "ml/MPIJob/hvd");
  EXPECT_EQ(g.api_version, "kubeflow.org/v2beta1");
  // The training operator's MPIJob (v1.8: mpijob-controller) is kubeflow.org/v1, the MPI operator's
  // v2beta1: one gang key for both, each read at its own version.
  g = GangIdentityOf(Pod({{"training.kubeflow.org/job-name", "hvd"}, {"training.kubeflow.org/operator-name", "mpijob-controller"}},
                         OwnerRef{"kubeflow.org/v1", "MPIJob", "hvd", "u"}));
  EXPECT_EQ(g.key, "ml/MPIJob/hvd");
  EXPECT_EQ(g.api_version, "kubeflow.org/v1");
  // An operator we do not know by name: the owner's kind.
  g = GangIdentityOf(Pod({{"training.kubeflow.org/job-name", "x"}}, OwnerRef{"kubeflow.org/v1", "TFJob", "x", "u"}));
  EXPECT_EQ(g.key, "ml/TFJob/x");
}

TEST(GangIdentity, RayPodsBelongToTheirRayCluster) {
  const GangIdentity g = GangIdentityOf(Pod({{"ray.io/cluster", "rc"}, {"ray.io/node-type", "worker"}},
                                            OwnerRef{"ray.io/v1", "RayCluster", "rc", "u"}));
  EXPECT_EQ(g.key, "ml/RayCluster/rc");
  EXPECT_EQ(g.kind, "RayCluster");
}

// The leader (owned by the leader StatefulSet) and the workers (owned by their group's StatefulSet) of
// one group share a gang; another group of the same set is another gang; the set is read for the size.
TEST(GangIdentity, EachLeaderWorkerSetGroupIsAGang) {
  auto lws_pod = [](const std::string& index, const std::string& owner) {
    return GangIdentityOf(Pod({{"leaderworkerset.sigs.k8s.io/name", "serve"}, {"leaderworkerset.sigs.k8s.io/group-index", index}},
                              OwnerRef{"apps/v1", "StatefulSet", owner, "u"}));
  };
  const GangIdentity leader = lws_pod("1", "serve");
  EXPECT_EQ(leader.key, "ml/LeaderWorkerSet/serve-1");
  EXPECT_EQ(leader.source, GangSource::kOwner);
  EXPECT_EQ(leader.api_version, "leaderworkerset.x-k8s.io/v1");
  EXPECT_EQ(leader.kind, "LeaderWorkerSet");
  EXPECT_EQ(leader.name, "serve");
  EXPECT_EQ(lws_pod("1", "serve-1").key, leader.key);
  EXPECT_EQ(lws_pod("0", "serve").key, "ml/LeaderWorkerSet/serve-0");
  // No group index, or one that is not a number: which group cannot be told, so a lone pod.
  EXPECT_EQ(lws_pod("", "serve").source, GangSource::kLone);
  EXPECT_EQ(lws_pod("1/../x", "serve").source, GangSource::kLone);
}

TEST(GangIdentity, PlainJobAndLonePods) {
  EXPECT_EQ(GangIdentityOf(Pod({}, OwnerRef{"batch/v1", "Job", "j", "u"})).key, "ml/Job/j");
  // A ReplicaSet's pods (or an old batch version) are lone pods.
  EXPECT_EQ(GangIdentityOf(Pod({}, OwnerRef{"apps/v1", "ReplicaSet", "rs", "u"})).source, GangSource::kLone);
  EXPECT_EQ(GangIdentityOf(Pod({})).key, "");
}

}  // namespace
}  // namespace gangplank::cache
