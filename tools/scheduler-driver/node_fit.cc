#include "tools/scheduler-driver/node_fit.h"

namespace gangplank::scheduler_driver {
namespace {

constexpr const char* kUnschedulableTaint = "node.kubernetes.io/unschedulable";

std::int64_t AmountOf(const std::vector<kube::ResourceAmount>& amounts, std::string_view name) {
  const kube::ResourceAmount* a = kube::FindAmount(amounts, name);
  return a == nullptr ? 0 : a->milli;
}

bool MatchesNodeSelector(const kube::Pod& pod, const kube::Node& node) {
  for (auto [key, value] : pod.node_selector) {
    const auto label = node.meta.labels.find(key);
    if (!label || *label != value) return false;
  }
  return true;
}

std::vector<std::string> ResourceFit(const kube::Pod& pod, const kube::Node& node, const NodeUsage& used) {
  std::vector<std::string> reasons;
  if (const kube::ResourceAmount* allowed = kube::FindAmount(node.allocatable, "pods");
      allowed != nullptr && static_cast<std::int64_t>(used.pods + 1) * 1000 > allowed->milli) {
    reasons.emplace_back("Too many pods");
  }
  for (const char* resource : kFitResources) {
    const std::int64_t wanted = AmountOf(pod.requests, resource);
    if (wanted <= 0) continue;
    const auto in_use = used.milli.find(std::string_view(resource));
    const std::int64_t free = AmountOf(node.allocatable, resource) - (in_use == used.milli.end() ? 0 : in_use->second);
    if (wanted > free) reasons.push_back(std::string("Insufficient ") + resource);
  }
  return reasons;
}

}  // namespace

void NodeUsage::Add(const kube::Pod& pod) {
  ++pods;
  for (const auto& amount : pod.requests) milli[amount.name] += amount.milli;
}

bool Tolerates(const std::vector<kube::Toleration>& tolerations, const kube::Taint& taint) {
  for (const auto& t : tolerations) {
    if (!t.effect.empty() && t.effect != taint.effect) continue;
    if (!t.key.empty() && t.key != taint.key) continue;
    if (t.op == "Exists") return true;
    if ((t.op.empty() || t.op == "Equal") && t.key == taint.key && t.value == taint.value) return true;
  }
  return false;
}

std::vector<std::string> InTreeFilter(const kube::Pod& pod, const kube::Node& node, const NodeUsage& used) {
  if (node.unschedulable && !Tolerates(pod.tolerations, {kUnschedulableTaint, "", "NoSchedule", ""})) {
    return {"node(s) were unschedulable"};
  }
  for (const auto& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!Tolerates(pod.tolerations, taint)) return {"node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}"};
  }
  if (!MatchesNodeSelector(pod, node)) return {"node(s) didn't match Pod's node affinity/selector"};
  return ResourceFit(pod, node, used);
}

}  // namespace gangplank::scheduler_driver
