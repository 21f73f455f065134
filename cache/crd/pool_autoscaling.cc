#include "cache/crd/pool_autoscaling.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cache/crd/json_fields.h"
#include "cache/objects/decode_error.h"

namespace gangplank::cache {

namespace jf = json_fields;

PoolAutoscaling PoolAutoscalingOf(const nlohmann::json& pool, const std::vector<std::string>& topology_levels) {
  const nlohmann::json* spec = jf::Member(&pool, "", "spec");
  const nlohmann::json* a = jf::Member(spec, "spec", "autoscaling");
  const std::string at = "spec.autoscaling";
  PoolAutoscaling out;
  out.enabled = jf::Bool(a, at, "enabled").value_or(out.enabled);
  out.node_gpus = jf::NonNegativeInt(a, at, "nodeGPUs", 1024).value_or(out.node_gpus);
  if (out.node_gpus < 1) throw DecodeError(at + ".nodeGPUs", "expected at least 1");
  out.domain_label = jf::String(a, at, "domainLabel").value_or("");
  if (!out.domain_label.empty() &&
      std::find(topology_levels.begin(), topology_levels.end(), out.domain_label) == topology_levels.end()) {
    throw DecodeError(at + ".domainLabel", "'" + out.domain_label + "' is not one of the pool's topologyLevels");
  }
  out.domains = jf::StringList(a, at, "domains").value_or(out.domains);
  if (!out.domains.empty() && out.domain_label.empty()) throw DecodeError(at + ".domains", "needs a domainLabel");
  for (size_t i = 0; i < out.domains.size(); ++i) {
    const auto d = out.domains.begin() + static_cast<std::ptrdiff_t>(i);
    if (d->empty()) throw DecodeError(at + ".domains[" + std::to_string(i) + "]", "empty label value");
    if (std::find(out.domains.begin(), d, *d) != d) {
      throw DecodeError(at + ".domains[" + std::to_string(i) + "]", "domain " + *d + " is listed twice");
    }
  }
  out.node_selector = jf::StringMap(a, at, "nodeSelector").value_or(out.node_selector);
  out.provision_timeout_seconds =
      jf::NonNegativeInt(a, at, "provisionTimeoutSeconds").value_or(out.provision_timeout_seconds);
  if (out.provision_timeout_seconds < 10) throw DecodeError(at + ".provisionTimeoutSeconds", "expected at least 10");
  return out;
}

}  // namespace gangplank::cache
