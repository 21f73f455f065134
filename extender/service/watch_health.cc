#include "extender/service/watch_health.h"

#include <utility>

namespace gangplank::extender {
namespace {

std::string FailingMessage(const char* kind, long failures) {
  return std::string("list/watch of ") + kind + " failing (" + std::to_string(failures) +
         " failures in a row): the cluster-state cache is going stale";
}

// A run of failures counts until a watch is open again (an idle resumed watch carries no event for a
// while, but the API server has answered).
bool IsFailing(const kube::InformerStats& stats, long failures_before_unready) {
  return !stats.watch_open && stats.consecutive_failures >= failures_before_unready;
}

}  // namespace

std::string WatchHealth::Problem() const {
  if (failures_before_unready_ <= 0) return "";
  const std::pair<const char*, kube::InformerStats> core[] = {{"nodes", informers_.nodes().stats()},
                                                              {"pods", informers_.pods().stats()},
                                                              {"namespaces", informers_.namespaces().stats()}};
  for (const auto& [kind, stats] : core) {
    if (IsFailing(stats, failures_before_unready_)) return FailingMessage(kind, stats.consecutive_failures);
  }
  return "";
}

}  // namespace gangplank::extender
