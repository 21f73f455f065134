#include "cache/crd/pool_utilization.h"

#include <nlohmann/json.hpp>

#include "cache/crd/json_fields.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

namespace jf = json_fields;

const nlohmann::json* SpecMember(const nlohmann::json& object, const char* key) {
  return jf::Member(jf::Member(&object, "", "spec"), "spec", key);
}

std::optional<double> Percent(const nlohmann::json* object, const std::string& at) {
  const auto v = jf::NonNegativeNumber(object, at, "thresholdPercent");
  if (v && *v > 100) throw DecodeError(jf::Path(at, "thresholdPercent"), "expected a percentage from 0 to 100");
  return v;
}

std::optional<int> PositiveSeconds(const nlohmann::json* object, const std::string& at, const char* key) {
  const auto v = jf::NonNegativeInt(object, at, key);
  if (v && *v < 1) throw DecodeError(jf::Path(at, key), "expected a whole number of seconds from 1 to 1000000000");
  return v;
}

QueueIdlePolicy IdlePolicyAt(const nlohmann::json* p, const std::string& at) {
  QueueIdlePolicy out;
  if (const auto action = jf::String(p, at, "action")) out.action = IdleActionNamed(*action, at + ".action");
  out.threshold_percent = Percent(p, at);
  out.idle_seconds = PositiveSeconds(p, at, "idleSeconds");
  out.min_age_seconds = jf::NonNegativeInt(p, at, "minAgeSeconds");
  out.allow_opt_out = jf::Bool(p, at, "allowOptOut");
  return out;
}

}  // namespace

std::string_view IdleActionName(IdleAction action) {
  switch (action) {
    case IdleAction::kOff: return "Off";
    case IdleAction::kReport: return "Report";
    case IdleAction::kPreemptible: return "Preemptible";
    case IdleAction::kReclaim: return "Reclaim";
  }
  return "Off";
}

IdleAction IdleActionNamed(std::string_view name, const std::string& field) {
  for (IdleAction a : {IdleAction::kOff, IdleAction::kReport, IdleAction::kPreemptible, IdleAction::kReclaim}) {
    if (IdleActionName(a) == name) return a;
  }
  throw DecodeError(field, "expected Off, Report, Preemptible or Reclaim, got '" + std::string(name) + "'");
}

IdlePolicyConfig IdlePolicyFor(IdlePolicyConfig pool, const QueueIdlePolicy& queue) {
  pool.action = queue.action.value_or(pool.action);
  pool.threshold_percent = queue.threshold_percent.value_or(pool.threshold_percent);
  pool.idle_seconds = queue.idle_seconds.value_or(pool.idle_seconds);
  pool.min_age_seconds = queue.min_age_seconds.value_or(pool.min_age_seconds);
  pool.allow_opt_out = queue.allow_opt_out.value_or(pool.allow_opt_out);
  return pool;
}

PoolUtilization PoolUtilizationOf(const nlohmann::json& pool) {
  const nlohmann::json* u = SpecMember(pool, "utilization");
  const std::string at = "spec.utilization";
  PoolUtilization out;
  out.prometheus_url = jf::String(u, at, "prometheusURL").value_or("");
  if (!out.prometheus_url.empty() && out.prometheus_url.rfind("http://", 0) != 0 &&
      out.prometheus_url.rfind("https://", 0) != 0) {
    throw DecodeError(at + ".prometheusURL", "expected an http:// or https:// URL, got '" + out.prometheus_url + "'");
  }
  out.query = jf::String(u, at, "query").value_or("");
  return out;
}

IdlePolicyConfig PoolIdlePolicyOf(const nlohmann::json& pool) {
  return IdlePolicyFor(IdlePolicyConfig{}, IdlePolicyAt(SpecMember(pool, "idlePolicy"), "spec.idlePolicy"));
}

PoolFairShare PoolFairShareOf(const nlohmann::json& pool) {
  const nlohmann::json* f = SpecMember(pool, "fairShare");
  const std::string at = "spec.fairShare";
  PoolFairShare out;
  out.usage_half_life_seconds = jf::NonNegativeInt(f, at, "usageHalfLifeSeconds").value_or(out.usage_half_life_seconds);
  out.usage_window_seconds = PositiveSeconds(f, at, "usageWindowSeconds").value_or(out.usage_window_seconds);
  out.usage_weight = jf::NonNegativeNumber(f, at, "usageWeight").value_or(out.usage_weight);
  return out;
}

QueueIdlePolicy QueueIdlePolicyOf(const nlohmann::json& queue) {
  return IdlePolicyAt(SpecMember(queue, "idlePolicy"), "spec.idlePolicy");
}

}  // namespace gangplank::cache
