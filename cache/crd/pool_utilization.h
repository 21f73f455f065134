// How a GPU pool reads its GPUs' utilization, what it does about gangs that hold GPUs without using them
// (spec.utilization, spec.idlePolicy; a Queue may override the idle policy), and whether its fair share
// counts past usage (spec.fairShare). All three are off unless the pool (or queue) says otherwise.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace gangplank::cache {

// What happens to a gang whose GPUs stay below the threshold for idleSeconds.
enum class IdleAction {
  kOff,          // Nothing is read or said.
  kReport,       // A condition on its pods, an Event and a metric.
  kPreemptible,  // Reported, and the first victim of reclaim and preemption whatever its queue's share.
  kReclaim,      // Reported, asked to checkpoint, then evicted whole and not admitted again.
};
std::string_view IdleActionName(IdleAction action);  // "Off", "Report", "Preemptible", "Reclaim"
// The action of that name; throws DecodeError naming `field` for any other.
IdleAction IdleActionNamed(std::string_view name, const std::string& field);

struct IdlePolicyConfig {
  IdleAction action = IdleAction::kOff;
  double threshold_percent = 5;  // Mean utilization of the gang's GPUs below this is idle.
  int idle_seconds = 3600;       // Idle this long, with data all along, before the action.
  int min_age_seconds = 1800;    // A gang admitted less long ago is never idle (data loading, warm-up).
  // Whether the gangplank.io/idle-exempt annotation on a gang's pods protects it.
  bool allow_opt_out = true;
  bool operator==(const IdlePolicyConfig&) const = default;
};

// A Queue's spec.idlePolicy: the fields it sets replace the pool's.
struct QueueIdlePolicy {
  std::optional<IdleAction> action;
  std::optional<double> threshold_percent;
  std::optional<int> idle_seconds;
  std::optional<int> min_age_seconds;
  std::optional<bool> allow_opt_out;
};
IdlePolicyConfig IdlePolicyFor(IdlePolicyConfig pool, const QueueIdlePolicy& queue);

struct PoolUtilization {
  // Prometheus' base URL; empty: the operator's --prometheus-url (utilization is not read when both are).
  std::string prometheus_url;
  // PromQL giving one series per pod with `namespace` and `pod` labels and the pod's mean GPU
  // utilization in percent. Empty: the operator's --utilization-query.
  std::string query;
  bool operator==(const PoolUtilization&) const = default;
};

// Time-based fair share: past usage decays with this half-life and is forgotten after the window.
struct PoolFairShare {
  int usage_half_life_seconds = 0;  // 0: off (instantaneous fair share, as before).
  int usage_window_seconds = 7 * 24 * 3600;
  double usage_weight = 1;          // How much past usage counts beside current holdings.
  bool operator==(const PoolFairShare&) const = default;
};

// Readers of a GPUPool's spec (`pool` is the whole object), with the CRD's defaults for absent fields.
// Throw DecodeError naming the field.
PoolUtilization PoolUtilizationOf(const nlohmann::json& pool);
IdlePolicyConfig PoolIdlePolicyOf(const nlohmann::json& pool);
PoolFairShare PoolFairShareOf(const nlohmann::json& pool);
// A Queue's spec.idlePolicy (`queue` is the whole object).
QueueIdlePolicy QueueIdlePolicyOf(const nlohmann::json& queue);

}  // namespace gangplank::cache
