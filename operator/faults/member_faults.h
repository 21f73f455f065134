// Faults of running gangs' members as the pod informer reports them (cache/objects/member_fault.h): a
// bound member that Failed, is being deleted, or is gone. Finished and deleted pods leave the gang
// tracker at once, so the fault is kept here, by gang, until the gang is restarted or gone. Each fault
// keeps the admission id its pod carried: the restarter counts only faults of the admission now running,
// so the members gangplank itself evicted (a restart, reclaim, preemption, spot) never count against
// the gang's next admission. Thread-safe: the informer's thread records, reconcile workers read.
#pragma once

#include <map>
#include <utility>
#include <mutex>
#include <string>
#include <vector>

#include "cache/objects/kube_objects.h"
#include "cache/objects/member_fault.h"

namespace gangplank::op {

// Gangs with faults kept at most; past it the oldest gang's are dropped (a flood of failures must not
// grow the operator without bound). One namespace keeps at most kMaxGangsWithMemberFaultsPerNamespace, its
// own oldest dropped first, so no tenant's flood pushes out another team's faults; and only members
// gangplank admitted (an admission id) are recorded, so pods nobody admitted fill nothing.
inline constexpr std::size_t kMaxGangsWithMemberFaults = 4096;
inline constexpr std::size_t kMaxGangsWithMemberFaultsPerNamespace = 256;

struct RecordedMemberFault {
  cache::MemberFaultSignal signal;
  std::string admission_id;  // The pod's gangplank.io/admission-id ("" when it had none).
};

class MemberFaults {
 public:
  // A member of gang `gang_key` as just seen (`gone`: the delete event). Only bound pods count.
  // True when a new fault was recorded.
  bool Observe(const std::string& gang_key, const cache::PodInfo& pod, bool gone, double now);
  std::vector<RecordedMemberFault> Of(const std::string& gang_key) const;
  // The gangs with faults kept (at most kMaxGangsWithMemberFaults).
  std::vector<std::string> Gangs() const;
  void Clear(const std::string& gang_key);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::vector<RecordedMemberFault>> faults_;  // By gang key.
  using FirstAt = std::map<std::string, double>;
  FirstAt first_at_;  // Gang key -> first fault.
  // The gangs whose keys start with `prefix` ("ns/"; "" for all), and dropping the one whose first fault is oldest.
  std::pair<FirstAt::iterator, FirstAt::iterator> GangsOf(const std::string& prefix);
  void DropOldest(const std::string& prefix);
};

}  // namespace gangplank::op
