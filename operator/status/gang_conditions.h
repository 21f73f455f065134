// Says why each gang waits, or that it was admitted: one condition, gangplank.io/GangAdmitted, on the
// gang's lead pod (its first member by name, so `kubectl describe pod` shows it), and an Event on the
// gang's owner (its Job, PyTorchJob, ..., or the lead pod) whenever the reason changes.
//
// Most gangs are admitted within moments of arriving, so a gang's first word that it waits is written
// only once it has waited `first_wait_seconds`; and a lone pod admitted before anything was said about it
// gets neither condition nor Event: kube-scheduler's PodScheduled condition and Scheduled Event on the
// same pod follow within a moment, and two more writes per pod would only load the API server.
//
// Reconcile rounds only record what the condition should be; a background thread writes it (a work
// queue of gang keys: one pending write per gang, the newest wins), at most once per gang per
// `min_rewrite_seconds` when only the message's numbers moved (the key then waits on a timer), so a
// thousand waiting gangs never slow admission down or flood the API server. A new status or reason is
// written at once, even when an older message was waiting on that timer: a gang's condition never
// keeps saying a reason that is no longer so.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "kube/work_queue.h"
#include "operator/writer/cluster_writer.h"
#include "operator/gangs/gang_tracker.h"

namespace gangplank::op {

inline constexpr const char* kGangConditionType = "gangplank.io/GangAdmitted";

class GangConditions {
 public:
  // The UID of the object that defines a gang, when known (GangSizeResolver::UidOf): kubectl describe
  // finds an object's Events by its UID, which the gang's pods do not carry for a PodGroup.
  using UidOf = std::function<std::string(const std::string& gang_key)>;
  // now(): seconds (any epoch). The writer thread starts at once.
  GangConditions(ClusterWriter& writer, std::function<double()> now, double min_rewrite_seconds = 30, UidOf uid_of = {},
                 double first_wait_seconds = 0);
  ~GangConditions();
  GangConditions(const GangConditions&) = delete;
  GangConditions& operator=(const GangConditions&) = delete;

  // `notable`: always written, as for a gang of several pods: the admission says more than where (a
  // backfill it must leave in time), or its plan holds members its controller has not made yet.
  void Admitted(const Gang& gang, const std::string& message, bool notable = false);
  // `reason` is CamelCase (an engine BlockCode name or an operator-level reason).
  void Blocked(const Gang& gang, const std::string& reason, const std::string& message);
  // Records an event on the gang's owner now (evictions, timeouts), whatever the condition does.
  void Event(const Gang& gang, const std::string& type, const std::string& reason, const std::string& message);
  void Forget(const std::string& gang_key);

  // Whether the gang's condition already says this (nothing to record, no need to fetch the gang).
  bool Says(const std::string& gang_key, const std::string& reason, const std::string& message) const;
  // What was last decided for a gang ("" when nothing): for tests and the dry-run endpoint.
  std::string ReasonOf(const std::string& gang_key) const;
  std::string MessageOf(const std::string& gang_key) const;
  // Waits until every recorded condition was written (tests, orderly shutdown).
  bool WaitIdle(std::chrono::milliseconds timeout);

 private:
  struct Desired {
    cache::PodInfo lead;
    cache::OwnerRef anchor;
    std::string status, reason, message;
    // What the API server was last told for this gang.
    std::string written_status, written_reason, written_message;
    double written_at = -1e300;
    double first_at = 0;   // When anything was first decided for the gang.
    bool queued = false;
    bool delayed = false;  // Queued, but waiting on a timer (the first wait, or the rewrite interval).
    bool quiet = false;    // Nothing is written when this is the first word about the gang.
  };
  void Set(const Gang& gang, const std::string& status, const std::string& reason, const std::string& message,
           bool quiet = false);
  void Run();
  void Process(const std::string& key);
  // Seconds before `d` may be written (<= 0: now). Called under mu_.
  double WaitBeforeWriting(const Desired& d) const;
  void WriteOne(const std::string& key, Desired snapshot);

  cache::OwnerRef Anchor(const Gang& gang) const;

  ClusterWriter& writer_;
  std::function<double()> now_;
  double min_rewrite_seconds_;
  UidOf uid_of_;
  double first_wait_seconds_;
  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  std::map<std::string, Desired> desired_;
  int pending_ = 0;  // Gangs whose desired condition is not written yet (queued, waiting or being written).
  kube::WorkQueue queue_;
  std::thread thread_;
};

// The object an event about this gang is recorded on: its owner, else its lead pod. `known_uid` is the
// owner's UID when the pods do not tell it.
cache::OwnerRef AnchorOf(const Gang& gang, const std::string& known_uid = "");

}  // namespace gangplank::op
