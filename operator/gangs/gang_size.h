// How many members a gang needs before it may start, from the object that defines it:
//   PodGroup (scheduling.k8s.io)   spec.schedulingPolicy.gang.minCount; basic{}: each pod on its own.
//                                  Also what else the group says of its gang: the topology key it must
//                                  keep to, its resolved priority, its disruption mode.
//   PodGroup (scheduler-plugins)   spec.minMember
//   batch/v1 Job                   spec.parallelism (default 1), at most spec.completions
//   JobSet                         sum over spec.replicatedJobs of replicas x template.spec.parallelism
//   Kubeflow training jobs         spec.runPolicy.schedulingPolicy.minAvailable, else the sum of the
//                                  replicas of every spec.<x>ReplicaSpecs entry (PyTorchJob, TFJob, MPIJob, ...),
//                                  an elastic PyTorchJob's Worker counted at spec.elasticPolicy.minReplicas
//   RayCluster                     the head plus every worker group's replicas (within min/maxReplicas)
//   LeaderWorkerSet                each group: spec.leaderWorkerTemplate.size (leader and workers), in
//                                  one domain of its exclusive-topology key; where the controller makes
//                                  the workers only once the leader is scheduled or runs (that key,
//                                  startupPolicy LeaderReady): 1, the leader first, its workers joining it
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
  std::string uid{};   // The defining object's metadata.uid ("" when it has none).
  // Further terms (a native PodGroup's; a LeaderWorkerSet's topology_key):
  bool singly = false;           // basic{}: its pods are admitted one by one, each when it fits.
  std::string topology_key{};    // spec.schedulingConstraints.topology[0].key: one domain of it.
  std::optional<int> priority{}; // spec.priority (resolved by the API server from priorityClassName).
  bool disrupt_whole = false;    // spec.disruptionMode.all: its pods may only be disrupted together.
  // Alone in its domain of topology_key: no other LeaderWorkerSet group of its namespace there (the
  // exclusive topology's pod anti-affinity against every other group's pods).
  bool exclusive_domain = false;
  // Members its controller makes only once the first is placed (a LeaderWorkerSet's workers under an
  // exclusive topology or LeaderReady): planned with the first, so it starts only where they fit too.
  int later_members = 0;
};

// The size from the defining object. Throws cache::DecodeError naming the field when the object has no
// usable size (a missing or malformed field, a non-positive total).
GangSize GangSizeOf(const cache::GangIdentity& gang, const std::string& namespace_, const nlohmann::json& object);

// How a native PodGroup's Workload reads in kubectl describe's words, for the gang's condition:
// "Workload ml/train (Pod Group Templates: workers, launcher; Controlled By: Job/train)".
std::string WorkloadWording(const std::string& namespace_, const nlohmann::json& workload);

// The gangplank.io/gang-size annotation of a pod, if it has one. Throws cache::DecodeError for anything
// but a whole number from 1 to 100000.
std::optional<int> GangSizeAnnotation(const cache::PodInfo& pod);

}  // namespace gangplank::op
