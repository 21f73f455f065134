// How many members a gang needs before it may start, from the object that defines it:
//   PodGroup (scheduler-plugins)   spec.minMember
//   batch/v1 Job                   spec.parallelism (default 1), at most spec.completions
//   JobSet                         sum over spec.replicatedJobs of replicas x template.spec.parallelism
//   Kubeflow training jobs         spec.runPolicy.schedulingPolicy.minAvailable, else the sum of the
//                                  replicas of every spec.<x>ReplicaSpecs entry (PyTorchJob, TFJob, MPIJob, ...)
//   RayCluster                     the head plus every worker group's replicas (within min/maxReplicas)
// and, for gangs made by the gangplank.io/gang label, the gangplank.io/gang-size annotation.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "cache/objects/gang_identity.h"
#include "cache/objects/kube_objects.h"

namespace gangplank::op {

struct GangSize {
  int min_members = 0;
  std::string source;  // Where it came from, for conditions: "Job ml/train spec.parallelism".
};

// The size from the defining object. Throws cache::DecodeError naming the field when the object has no
// usable size (a missing or malformed field, a non-positive total).
GangSize GangSizeOf(const cache::GangIdentity& gang, const std::string& namespace_, const nlohmann::json& object);

// The gangplank.io/gang-size annotation of a pod, if it has one. Throws cache::DecodeError for anything
// but a whole number from 1 to 100000.
std::optional<int> GangSizeAnnotation(const cache::PodInfo& pod);

}  // namespace gangplank::op
