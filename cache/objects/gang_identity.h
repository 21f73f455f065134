// Which gang a pod belongs to, from the pod alone (labels and its controlling owner), so the extender and
// the operator group pods the same way without reading other objects. In order of precedence:
//   0. spec.schedulingGroup.podGroupName: Kubernetes' own PodGroup (scheduling.k8s.io, 1.36+)
//                                                     key "<ns>/PodGroup.scheduling.k8s.io/<name>"
//      It comes first because kube-scheduler groups the pod by it in its PodGroup cycle whatever its
//      labels say: gangplank must admit the same set of pods the scheduler will place together.
//   1. gangplank.io/gang label                        key "<ns>/<gang>"
//   2. scheduler-plugins' scheduling.x-k8s.io/pod-group label: its PodGroup   key "<ns>/PodGroup/<name>"
//   3. the workload controller that owns the pod, found from the labels the controllers set:
//      JobSet (jobset.sigs.k8s.io/jobset-name), Kubeflow training jobs (training.kubeflow.org/job-name,
//      kind from training.kubeflow.org/operator-name or the owner), KubeRay (ray.io/cluster: the
//      RayCluster, which a RayJob creates), else a controlling batch/v1 Job    key "<ns>/<Kind>/<name>"
//      LeaderWorkerSet (leaderworkerset.sigs.k8s.io/name and group-index): each group of leader and
//      workers is a gang of its own                                  key "<ns>/LeaderWorkerSet/<name>-<index>"
//   4. otherwise a lone pod (a gang of one)           key ""
// How many members a gang needs is not decided here: it may need the owner object (operator/gangs).
#pragma once

#include <string>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

enum class GangSource { kLone, kNativePodGroup, kGangLabel, kPodGroup, kOwner };

struct GangIdentity {
  GangSource source = GangSource::kLone;
  std::string key;  // See above; empty for a lone pod.
  // For kNativePodGroup, kPodGroup and kOwner: the object that defines the gang (to read its size).
  std::string api_version;
  std::string kind;
  std::string name;
};

GangIdentity GangIdentityOf(const PodInfo& pod);

// The gang's controller restarts or replaces its failed members itself (JobSet's failure policy,
// LeaderWorkerSet's group recreation, the training operators' restart policies, KubeRay's worker
// replacement): true for the owner-defined gangs but a batch Job's, which replaces one pod at a time
// and leaves the gang's restart to gangplank, as do PodGroups' and labelled gangs' pods.
bool ControllerMendsMembers(const GangIdentity& gang);

// The gang key of the pods of Kubernetes' own PodGroup `name` in `namespace_`.
std::string NativePodGroupKey(const std::string& namespace_, const std::string& name);

// The API version gangplank reads native PodGroups at.
inline constexpr const char* kNativePodGroupApiVersion = "scheduling.k8s.io/v1beta1";

}  // namespace gangplank::cache
