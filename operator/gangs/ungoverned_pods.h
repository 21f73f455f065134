// The GPU pods gangplank does not govern: bound, unfinished pods that ask for GPUs but name none of its
// schedulers and carry no admission gate (another scheduler's, or bound at creation, in a namespace the
// fence exempts; pods older than the install). gangplank cannot move them, but they hold GPUs, so each
// pool charges them to their namespace's queue (its gangplank.io/queue label, set by an admin; never the
// pod's own label, which the pod's owner chooses) as one ungoverned entry per namespace. Thread-safe: the
// informer's thread writes, reconcile workers read.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cache/objects/kube_objects.h"

namespace gangplank::op {

// The admission book's key of a namespace's ungoverned entry. No gang key has it: ':' is in no label
// value, kind or pod name.
std::string UngovernedKey(std::string_view namespace_);
bool IsUngovernedKey(std::string_view key);
std::string_view NamespaceOfUngovernedKey(std::string_view key);

class UngovernedPods {
 public:
  // Records a pod event (`governed`: the gang tracker manages it). Returns the namespace whose set of
  // ungoverned pods changed, "" when none did.
  std::string Observe(const cache::PodInfo& pod, bool removed, bool governed);

  std::vector<std::string> UidsIn(const std::string& namespace_) const;
  std::vector<std::string> Namespaces() const;

 private:
  bool Erase(const std::string& uid);

  mutable std::mutex mu_;
  std::map<std::string, std::string> namespace_of_;              // UID -> namespace.
  std::map<std::string, std::set<std::string>> by_namespace_;  // Namespace -> UIDs.
};

}  // namespace gangplank::op
