#include "extender/service/watch_health.h"

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
  if (const auto s = informers_.nodes().stats(); IsFailing(s, failures_before_unready_)) return FailingMessage("nodes", s.consecutive_failures);
  if (const auto s = informers_.pods().stats(); IsFailing(s, failures_before_unready_)) return FailingMessage("pods", s.consecutive_failures);
  if (const auto s = informers_.namespaces().stats(); IsFailing(s, failures_before_unready_)) {
    return FailingMessage("namespaces", s.consecutive_failures);
  }
  return "";
}

}  // namespace gangplank::extender
