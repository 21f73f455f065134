// The pods gangplank manages (they name one of its schedulers, or carry its admission gate), grouped
// into gangs by cache::GangIdentityOf, as the pod informer reports them. Finished pods leave their
// gang; a gang with no pods left is gone. Thread-safe: the informer's dispatcher thread writes,
// reconcile workers read single gangs as snapshots, so no reader holds the lock for long. A gang a
// reader shares is never changed: a pod's change then replaces it whole (copy on write), so the fault
// look shares every running gang instead of copying each, and a gang no reader holds is changed in place.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/objects/gang_identity.h"
#include "cache/objects/kube_objects.h"
#include "engine/request.h"

namespace gangplank::op {

struct Member {
  cache::PodInfo pod;
  engine::PodRequest request;
  std::string request_error;   // Why the pod's resources cannot be read (the gang is then invalid).
  bool gated = false;          // Carries gangplank.io/admission.
  std::string planned_node;    // gangplank.io/planned-node.
  std::string admission_id;    // gangplank.io/admission-id.
  double created = 0;          // Creation time, seconds since the epoch.

  bool bound() const { return !pod.node_name.empty(); }
  bool deleting() const { return pod.deleting; }
};

struct Gang {
  std::string key;  // The identity key; "<namespace>/Pod/<name>" for a lone pod.
  cache::GangIdentity identity;
  std::string namespace_;
  std::vector<Member> members;  // Ordered by pod name.
};

// The gang's pods not being deleted: what a checkpoint request, an eviction or its withdrawal writes to.
std::vector<cache::PodInfo> LiveMembers(const Gang& gang);

class GangTracker {
 public:
  explicit GangTracker(std::vector<std::string> scheduler_names);

  // Records a pod; returns the keys of the gangs it changed for admission (its gang, and its former one
  // if it moved); none when only what admission never reads changed (status conditions, say). Pods
  // that are not gangplank's, and finished pods, leave (or never join) the tracker.
  std::vector<std::string> Upsert(const cache::PodInfo& pod);
  std::vector<std::string> Remove(const std::string& uid);

  // The gang's current snapshot (never changed after: the tracker copies a gang a reader still holds
  // before changing it), or null.
  std::shared_ptr<const Gang> Share(const std::string& key) const;
  bool Has(const std::string& key) const;  // Share without the snapshot.
  std::vector<std::string> Keys() const;
  std::vector<std::string> KeysInNamespace(const std::string& namespace_) const;
  size_t size() const;
  // Names one of gangplank's schedulers, or carries its admission gate.
  bool Manages(const cache::PodInfo& pod) const;

 private:
  void Erase(const std::string& uid, std::vector<std::string>& touched);
  // The gang to change: in place when no reader shares it (a reader's copy can only be made under mu_),
  // else a copy put in its slot, the readers keeping the old one.
  static Gang& Writable(std::shared_ptr<Gang>& slot);

  std::vector<std::string> scheduler_names_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Gang>> gangs_;  // By key; handed out as const.
  std::unordered_map<std::string, std::string> gang_of_;    // Pod UID -> gang key.
};

// The gang key of a managed pod (its identity key, or "<ns>/Pod/<name>" for a lone pod).
std::string GangKeyOf(const cache::PodInfo& pod, const cache::GangIdentity& identity);

// A member as the tracker keeps it (request parsed, annotations read).
Member MemberOf(const cache::PodInfo& pod);

}  // namespace gangplank::op
