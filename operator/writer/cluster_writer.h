// Every write the operator makes to the cluster, behind one interface: the reconciler decides, this
// carries it out. KubeClusterWriter talks to the API server; tests and benchmarks substitute their own.
// Pod writes carry the pod's resourceVersion as a precondition, so a pod that changed since it was
// read is never written blindly: when it changed in more than its status (pod_drift.h), the write fails
// with PodChanged and the caller re-plans.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache/objects/kube_objects.h"

namespace gangplank::op {

// Karpenter's annotation that keeps a pod's node from voluntary disruption (consolidation, drift): the
// plan writes it on the members of a gang in an autoscaled pool, so no member is taken alone.
inline constexpr const char* kDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";

// The pod changed (or went) since it was read: a resourceVersion precondition failed.
class PodChanged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class EvictResult { kEvicted, kGone, kBlockedByBudget };

// Annotations to set on a pod in one write; a key mapped to nullopt is removed.
using AnnotationEdits = std::map<std::string, std::optional<std::string>>;

// `edits` made on a pod held in memory (the writers tests and benchmarks substitute keep pods so).
inline void ApplyAnnotationEdits(cache::PodInfo& pod, const AnnotationEdits& edits) {
  for (const auto& [key, value] : edits) {
    if (value) pod.annotations[key] = *value;
    else pod.annotations.erase(key);
  }
}

struct ConditionWrite {
  std::string type;     // e.g. "gangplank.io/GangAdmitted", "Ready"
  std::string status;   // True | False | Unknown
  std::string reason;   // CamelCase
  std::string message;
  // Pods only (status conditions of custom resources keep their own): the status flipped, so
  // lastTransitionTime moves; otherwise the pod's stays as it is.
  bool status_changed = true;
};

struct EventWrite {
  cache::OwnerRef object;  // What the event is about (a Pod or the gang's owner).
  std::string namespace_;
  std::string type;        // Normal | Warning
  std::string reason;
  std::string message;
};

class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;

  // Admission, phase 1: records the planned node and the admission id on a gated pod, and its
  // spec.activeDeadlineSeconds when `pod` carries one (admission_commit.h: a backfill held to its
  // runtime; the same value as stored changes nothing), and kDoNotDisruptAnnotation when it carries that. Returns the pod as stored. Throws PodChanged
  // when it changed in more than its status since it was read.
  virtual cache::PodInfo PlanPod(const cache::PodInfo& pod, const std::string& node, const std::string& admission_id) = 0;
  // Undoes PlanPod (a plan that could not be written whole).
  virtual cache::PodInfo UnplanPod(const cache::PodInfo& pod) = 0;
  // Admission, phase 2: removes gangplank's scheduling gate, so kube-scheduler takes the pod; in the same
  // write, pins it to its planned node by required node affinity (metadata.name), unless it has required
  // terms of its own: kube-scheduler then filters and scores that one node, not every node (the extender's
  // filter would allow no other anyway).
  virtual cache::PodInfo ReleasePod(const cache::PodInfo& pod) = 0;
  // A gang of one pod: PlanPod and ReleasePod in one write, so nothing half-done can be left between them.
  // Throws PodChanged as PlanPod does (then nothing was written).
  virtual cache::PodInfo PlanAndReleasePod(const cache::PodInfo& pod, const std::string& node,
                                           const std::string& admission_id) {
    return ReleasePod(PlanPod(pod, node, admission_id));
  }
  // The pod as the API server has it now (nullopt when it is gone).
  virtual std::optional<cache::PodInfo> ReadPod(const std::string& namespace_, const std::string& name) = 0;

  // Sets and removes annotations of a pod in one write (no precondition: the annotations are gangplank's
  // own). Returns the pod as stored. Throws PodChanged when the pod is gone.
  virtual cache::PodInfo AnnotatePod(const cache::PodInfo& pod, const AnnotationEdits& edits) = 0;

  // Evicts through the Eviction API (kBlockedByBudget when a PodDisruptionBudget forbids it now), with
  // `grace_seconds` overriding the pod's termination grace period when set.
  virtual EvictResult EvictPod(const cache::PodInfo& pod, std::optional<int> grace_seconds) = 0;
  // Deletes the pod (PodDisruptionBudgets do not apply): only for a node that goes away anyway, and for
  // gangplank's own placeholders. An empty uid deletes whatever pod has the name.
  virtual EvictResult DeletePod(const cache::PodInfo& pod, int grace_seconds) = 0;
  // Creates a pod of gangplank's own (an autoscaler's placeholder, operator/autoscaling) and returns it as
  // stored. Throws when the API server refuses it.
  virtual cache::PodInfo CreatePod(const nlohmann::json& pod) = 0;
  // The PodDisruptionBudgets of a namespace (raw JSON objects), to check a whole gang before evicting.
  virtual std::vector<nlohmann::json> DisruptionBudgets(const std::string& namespace_) = 0;

  // Sets one condition in the pod's status (other conditions untouched). Best effort.
  virtual void SetPodCondition(const cache::PodInfo& pod, const ConditionWrite& condition) = 0;
  // Sets one condition in a native PodGroup's status (scheduling.k8s.io), merged by type so the
  // scheduler's own conditions (PodGroupInitiallyScheduled) are left as they are. Best effort.
  virtual void SetPodGroupCondition(const std::string& namespace_, const std::string& name, const ConditionWrite& condition) = 0;
  // Records an Event. Best effort.
  virtual void RecordEvent(const EventWrite& event) = 0;
  // Writes the status of a GPUPool or Queue (cluster-scoped gangplank resources) when it changed:
  // `fields` replace those status fields, `conditions` are set by type (lastTransitionTime moves only
  // when a status flips), observedGeneration follows the object. Best effort; false on failure.
  virtual bool WriteStatus(const std::string& plural, const std::string& name, const nlohmann::json& fields,
                           const std::vector<ConditionWrite>& conditions) = 0;
};

}  // namespace gangplank::op
