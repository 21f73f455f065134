// GPU utilization of pods as one read of Prometheus saw it, per GPU pool. The poller (utilization_poller.h)
// writes a snapshot per pool; each reconcile of the pool reads its latest one (idle_gangs.h, usage.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

namespace gangplank::op {

struct PodUtilizationSnapshot {
  double at = 0;          // When it was read (seconds since the epoch).
  bool ok = false;        // The read succeeded; false: `error` says why and `percent` is empty.
  std::string error;
  std::string reason;     // With !ok, a short word for metrics: unreachable, http, malformed, ...
  // (namespace, pod) -> mean utilization of the pod's GPUs, in percent. A pod without a series is absent.
  std::map<std::pair<std::string, std::string>, double> percent;

  // The pod's utilization, or a negative number when it has none.
  double Of(const std::string& namespace_, const std::string& pod) const {
    const auto it = percent.find({namespace_, pod});
    return it == percent.end() ? -1 : it->second;
  }
};

// Pool name -> its latest snapshot. Pools whose utilization is not read are absent.
using UtilizationSnapshots = std::map<std::string, std::shared_ptr<const PodUtilizationSnapshot>>;

// Where utilization is read from: Prometheus over HTTP in the binary, a fake in unit tests. Never
// throws: a failed read is a snapshot with ok false.
class UtilizationSource {
 public:
  virtual ~UtilizationSource() = default;
  virtual PodUtilizationSnapshot Read(const std::string& prometheus_url, const std::string& query, double now) = 0;
};

}  // namespace gangplank::op
