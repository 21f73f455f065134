#include "extender/service/watch_health.h"

namespace gangplank::extender {
namespace {

std::string Failing(const char* kind, long failures) {
  return std::string("list/watch of ") + kind + " failing (" + std::to_string(failures) +
         " failures in a row): the cluster-state cache is going stale";
}

}  // namespace

std::string WatchHealth::Problem() const {
  if (failures_before_unready_ <= 0) return "";
  if (const long n = informers_.nodes().stats().consecutive_failures; n >= failures_before_unready_) return Failing("nodes", n);
  if (const long n = informers_.pods().stats().consecutive_failures; n >= failures_before_unready_) return Failing("pods", n);
  if (const long n = informers_.namespaces().stats().consecutive_failures; n >= failures_before_unready_) {
    return Failing("namespaces", n);
  }
  return "";
}

}  // namespace gangplank::extender
