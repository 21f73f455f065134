// What the driver does, as kube-scheduler's configuration would say it: one profile (schedulerName)
// and one extender with nodeCacheCapable: true. Flags (driver_flags.h) fill this; tests may too.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gangplank::scheduler_driver {

// One extender, as KubeSchedulerConfiguration's `extenders[0]`.
struct ExtenderOptions {
  std::string base_url;     // scheme://host:port of urlPrefix
  std::string path_prefix;  // path part of urlPrefix, no trailing '/'; verbs are POSTed to <prefix>/<verb>
  std::string filter_verb = "filter";
  std::string prioritize_verb = "prioritize";  // empty: no scores, the lowest feasible name wins
  std::string bind_verb = "bind";              // used only with bind_via_extender
  std::int64_t weight = 5;                     // total = score × weight × 10 (MaxNodeScore / MaxExtenderPriority)
  std::chrono::milliseconds timeout{5000};     // httpTimeout (kube-scheduler default 5 s)
  bool ignorable = false;                      // skip a failing extender instead of failing the attempt
  bool bind_via_extender = false;              // bindVerb set: the extender creates the Binding

  // urlPrefix as configured, e.g. "http://127.0.0.1:8888/gangplank".
  std::string url(const std::string& verb) const { return base_url + path_prefix + "/" + verb; }
};

struct DriverOptions {
  std::string scheduler_name = "gangplank";
  ExtenderOptions extender;
  // Backoff of a pod whose attempt failed (podInitialBackoffSeconds / podMaxBackoffSeconds).
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{10000};
  // Component name on Events and the binding's log lines.
  std::string component = "gangplank-scheduler-driver";
};

}  // namespace gangplank::scheduler_driver
