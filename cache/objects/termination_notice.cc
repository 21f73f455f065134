#include "cache/objects/termination_notice.h"

#include <array>
#include <chrono>
#include <string_view>

#include "cache/objects/conventions.h"
#include "base/time_format.h"

namespace gangplank::cache {
namespace {

struct TaintSignal {
  std::string_view key;
  std::string_view source;
  double lead_seconds;
  bool spot_only;  // Counts only on a spot node (the taint also means other things).
};

constexpr std::array<TaintSignal, 5> kTaints{{
    {"aws-node-termination-handler/spot-itn", "aws-node-termination-handler", 120, false},
    {"karpenter.sh/disrupted", "karpenter", 120, false},
    {"karpenter.sh/disruption", "karpenter", 120, false},
    {"cloud.google.com/impending-node-termination", "gke", 30, false},
    {"remediator.aks.microsoft.com/unschedulable", "aks", 30, true},
}};

std::string Value(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

}  // namespace

bool IsSpotNode(const NodeInfo& node) {
  const auto& l = node.labels;
  return Value(l, "karpenter.sh/capacity-type") == "spot" || Value(l, "cloud.google.com/gke-spot") == "true" ||
         Value(l, "cloud.google.com/gke-preemptible") == "true" ||
         Value(l, "kubernetes.azure.com/scalesetpriority") == "spot" || Value(l, "eks.amazonaws.com/capacityType") == "SPOT";
}

NoticeReading ReadTerminationNotice(const NodeInfo& node, bool known_spot) {
  NoticeReading out;
  const std::string annotation(kTerminateAtAnnotation);
  if (auto it = node.annotations.find(annotation); it != node.annotations.end()) {
    if (const std::optional<double> at = base::ParseEpochSeconds(it->second)) {
      out.notice = TerminationNotice{"annotation", "annotation " + annotation, *at, 0};
      return out;
    }
    out.warning = "node " + node.name + ": annotation " + annotation + "='" + it->second +
                  "' is not an RFC 3339 time (e.g. 2026-01-01T12:00:00Z); ignored";
  }
  for (const engine::Taint& taint : node.taints) {
    for (const TaintSignal& s : kTaints) {
      if (taint.key != s.key || (s.spot_only && !known_spot && !IsSpotNode(node))) continue;
      out.notice = TerminationNotice{std::string(s.source), "taint " + taint.key, std::nullopt, s.lead_seconds};
      return out;
    }
  }
  if (Value(node.conditions, "ImpendingNodeTermination") == "True") {
    out.notice = TerminationNotice{"gke", "condition ImpendingNodeTermination", std::nullopt, 30};
  }
  return out;
}

}  // namespace gangplank::cache
