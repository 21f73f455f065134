// The operator's own record of gang restarts in one GPU pool (fault recovery): how often each gang was
// restarted and when, the cause, the nodes it was moved off, and whether it was failed for good. It is
// the pool's status field `gangRestarts`, written with the rest of the status and read back when a pool
// model is made, so a new leader carries on with the counts and backoffs the last one left.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gangplank::op {

struct RestartRecord {
  int restarts = 0;                // Restarts charged to the gang (its own failures; not a node's).
  double last_restart_at = 0;      // Seconds since the epoch, of the last charged restart.
  double fault_at = 0;             // When the fault behind the last restart started.
  std::string cause;               // engine FaultCauseName of the last restart (or of the failure).
  std::string message;             // What happened, as the events said.
  std::vector<std::string> avoid_nodes;  // Nodes the last restart moved it off.
  bool failed = false;             // Failed for good: its pods are not admitted again.
  bool running_again = true;       // False from a restart until the gang runs again (time to recover).
};

// Records kept at most; past it the oldest that are not failed go first.
inline constexpr std::size_t kMaxRestartRecords = 1024;
// A record of a gang with no pods is forgotten this long after its last restart (the owner is gone).
inline constexpr double kRestartRecordSeconds = 24 * 3600;

class RestartBook {
 public:
  const RestartRecord* Find(const std::string& gang) const;
  RestartRecord& At(const std::string& gang);
  RestartRecord* Mutable(const std::string& gang);  // Null when the gang has no record.
  void Forget(const std::string& gang);
  // Drops records of gangs gone (per `exists`) for kRestartRecordSeconds, and the oldest beyond the cap.
  template <typename Exists>
  void Prune(double now, Exists&& exists) {
    for (auto it = records_.begin(); it != records_.end();) {
      // A restart the node caused sets no last_restart_at (it is not charged): its fault time counts.
      const double last = std::max(it->second.last_restart_at, it->second.fault_at);
      const bool stale = now - last > kRestartRecordSeconds && !exists(it->first);
      it = stale ? records_.erase(it) : std::next(it);
    }
    Cap();
  }
  bool empty() const { return records_.empty(); }
  // Whether a restarted gang is not running again yet (its recovery time is still to be measured).
  bool AnyRecovering() const {
    return std::any_of(records_.begin(), records_.end(), [](const auto& r) { return !r.second.running_again; });
  }
  const std::map<std::string, RestartRecord>& records() const { return records_; }

  // As the GPUPool status carries it: [{"gang", "restarts", "lastRestartTime", "cause", "message",
  // "avoidNodes", "failed"}], sorted by gang.
  nlohmann::json ToStatus() const;
  // From a GPUPool's status.gangRestarts; malformed entries are skipped.
  static RestartBook FromStatus(const nlohmann::json& entries);

 private:
  void Cap();
  std::map<std::string, RestartRecord> records_;
};

}  // namespace gangplank::op
