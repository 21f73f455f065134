#include "cache/objects/gang_identity.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "cache/objects/conventions.h"

namespace gangplank::cache {
namespace {

GangIdentity Owned(const PodInfo& pod, std::string api_version, std::string kind, std::string name) {
  GangIdentity g;
  g.source = GangSource::kOwner;
  g.key = pod.namespace_ + "/" + kind + "/" + name;
  g.api_version = std::move(api_version);
  g.kind = std::move(kind);
  g.name = std::move(name);
  return g;
}

// Kubeflow training operators name themselves in training.kubeflow.org/operator-name.
struct TrainingKind {
  std::string_view operator_name;
  std::string_view kind;
  std::string_view api_version;
};
constexpr std::array<TrainingKind, 8> kTrainingKinds{{
    {"pytorchjob-controller", "PyTorchJob", "kubeflow.org/v1"},
    {"tfjob-controller", "TFJob", "kubeflow.org/v1"},
    {"xgboostjob-controller", "XGBoostJob", "kubeflow.org/v1"},
    {"paddlejob-controller", "PaddleJob", "kubeflow.org/v1"},
    {"jaxjob-controller", "JAXJob", "kubeflow.org/v1"},
    {"mxjob-controller", "MXJob", "kubeflow.org/v1"},
    // The training operator's own MPIJob is v1 (launcher a pod); the MPI operator's is v2beta1
    // (launcher a Job).
    {"mpijob-controller", "MPIJob", "kubeflow.org/v1"},
    {"mpi-operator", "MPIJob", "kubeflow.org/v2beta1"},
}};

GangIdentity TrainingJob(const PodInfo& pod, const std::string& job) {
  const std::string op = pod.Label("training.kubeflow.org/operator-name");
  for (const TrainingKind& k : kTrainingKinds) {
    if (op == k.operator_name) return Owned(pod, std::string(k.api_version), std::string(k.kind), job);
  }
  // An operator we do not know by name: the controlling owner tells the kind, unless it is the Job
  // an MPIJob runs its launcher in.
  if (pod.controller && pod.controller->kind != "Job") {
    return Owned(pod, pod.controller->api_version, pod.controller->kind, job);
  }
  return Owned(pod, "kubeflow.org/v1", "PyTorchJob", job);
}

// A LeaderWorkerSet group: its leader and workers carry the set's name and the group's index (set by
// the LWS pod webhook). Each group is a gang of its own; the set is read for the size.
GangIdentity LeaderWorkerGroup(const PodInfo& pod, std::string set, const std::string& index) {
  GangIdentity g = Owned(pod, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", std::move(set));
  g.key += "-" + index;  // "<ns>/LeaderWorkerSet/<set>-<index>", as the leader pod is named.
  return g;
}

bool AllDigits(const std::string& s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool ControllerMendsMembers(const GangIdentity& gang) {
  return gang.source == GangSource::kOwner && gang.kind != "Job";
}

std::string NativePodGroupKey(const std::string& namespace_, const std::string& name) {
  return namespace_ + "/PodGroup.scheduling.k8s.io/" + name;
}

GangIdentity GangIdentityOf(const PodInfo& pod) {
  if (!pod.pod_group_name.empty()) {
    GangIdentity g;
    g.source = GangSource::kNativePodGroup;
    g.key = NativePodGroupKey(pod.namespace_, pod.pod_group_name);
    g.api_version = kNativePodGroupApiVersion;
    g.kind = "PodGroup";
    g.name = pod.pod_group_name;
    return g;
  }
  if (std::string gang = pod.Label(kGangLabel); !gang.empty()) {
    GangIdentity g;
    g.source = GangSource::kGangLabel;
    g.key = pod.namespace_ + "/" + gang;
    g.name = std::move(gang);
    return g;
  }
  if (std::string group = pod.Label(kPodGroupLabel); !group.empty()) {
    GangIdentity g = Owned(pod, "scheduling.x-k8s.io/v1alpha1", "PodGroup", std::move(group));
    g.source = GangSource::kPodGroup;
    return g;
  }
  if (std::string jobset = pod.Label("jobset.sigs.k8s.io/jobset-name"); !jobset.empty()) {
    return Owned(pod, "jobset.x-k8s.io/v1alpha2", "JobSet", std::move(jobset));
  }
  if (std::string job = pod.Label("training.kubeflow.org/job-name"); !job.empty()) return TrainingJob(pod, job);
  if (std::string ray = pod.Label("ray.io/cluster"); !ray.empty()) {
    return Owned(pod, "ray.io/v1", "RayCluster", std::move(ray));
  }
  if (std::string set = pod.Label("leaderworkerset.sigs.k8s.io/name"); !set.empty()) {
    // Without a well-formed group index (the webhook did not run) the group cannot be told: a lone pod.
    const std::string index = pod.Label("leaderworkerset.sigs.k8s.io/group-index");
    return AllDigits(index) ? LeaderWorkerGroup(pod, std::move(set), index) : GangIdentity{};
  }
  if (pod.controller && pod.controller->kind == "Job" && pod.controller->api_version == "batch/v1") {
    return Owned(pod, "batch/v1", "Job", pod.controller->name);
  }
  return {};
}

}  // namespace gangplank::cache
