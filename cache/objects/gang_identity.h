// Which gang a pod belongs to, from the pod alone (labels and its controlling owner), so the extender and
// the operator group pods the same way without reading other objects. In order of precedence:
//   1. gangplank.io/gang label                        key "<ns>/<gang>"
//   2. scheduler-plugins' scheduling.x-k8s.io/pod-group label: its PodGroup   key "<ns>/PodGroup/<name>"
//   3. the workload controller that owns the pod, found from the labels the controllers set:
//      JobSet (jobset.sigs.k8s.io/jobset-name), Kubeflow training jobs (training.kubeflow.org/job-name,
//      kind from training.kubeflow.org/operator-name or the owner), KubeRay (ray.io/cluster: the
//      RayCluster, which a RayJob creates), else a controlling batch/v1 Job    key "<ns>/<Kind>/<name>"
//   4. otherwise a lone pod (a gang of one)           key ""
// How many members a gang needs is not decided here: it may need the owner object (operator/gangs).
#pragma once

#include <string>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

enum class GangSource { kLone, kGangLabel, kPodGroup, kOwner };

struct GangIdentity {
  GangSource source = GangSource::kLone;
  std::string key;  // See above; empty for a lone pod.
  // For kPodGroup and kOwner: the object that defines the gang (to read its size).
  std::string api_version;
  std::string kind;
  std::string name;
};

GangIdentity GangIdentityOf(const PodInfo& pod);

}  // namespace gangplank::cache
