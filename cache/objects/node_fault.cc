#include "cache/objects/node_fault.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "base/time_format.h"
#include "cache/objects/conventions.h"
#include "cache/objects/decode_error.h"
#include "cache/objects/quantity.h"

namespace gangplank::cache {
namespace {

constexpr std::string_view kNotReadyTaint = "node.kubernetes.io/not-ready";
constexpr std::string_view kUnreachableTaint = "node.kubernetes.io/unreachable";

std::optional<double> EpochSeconds(std::string_view rfc3339) {
  if (rfc3339.empty()) return std::nullopt;
  const auto t = base::ParseTime(rfc3339);
  if (!t) return std::nullopt;
  return std::chrono::duration<double>(t->time_since_epoch()).count();
}

std::string SinceText(const std::optional<double>& since) {
  if (!since) return "";
  const auto t = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(*since)));
  return " since " + base::FormatTime(t);
}

const ConditionDetail* DetailOf(const NodeInfo& node, const std::string& type) {
  auto it = node.condition_details.find(type);
  return it == node.condition_details.end() ? nullptr : &it->second;
}

// " (reason: message)", the condition's own words, or "" when it has none.
std::string BecauseText(const ConditionDetail* detail) {
  if (detail == nullptr || (detail->reason.empty() && detail->message.empty())) return "";
  if (detail->message.empty()) return " (" + detail->reason + ")";
  if (detail->reason.empty()) return " (" + detail->message + ")";
  return " (" + detail->reason + ": " + detail->message + ")";
}

std::optional<double> TaintSince(const NodeInfo& node, std::string_view key) {
  auto it = node.taint_time_added.find(std::string(key));
  return it == node.taint_time_added.end() ? std::nullopt : EpochSeconds(it->second);
}

// The node's taint with this key, its NoExecute one when it has several (that is the one that evicts).
const engine::Taint* FindTaint(const NodeInfo& node, std::string_view key) {
  const engine::Taint* found = nullptr;
  for (const engine::Taint& t : node.taints) {
    if (t.key != key) continue;
    if (found == nullptr || t.effect == "NoExecute") found = &t;
  }
  return found;
}

std::string TaintText(const engine::Taint& t) {
  return "taint " + t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect;
}

NodeFaultSignal FromReadyCondition(const NodeInfo& node, const std::string& status) {
  const bool unreachable = status == "Unknown";
  const ConditionDetail* detail = DetailOf(node, "Ready");
  std::optional<double> since = detail ? EpochSeconds(detail->last_transition_time) : std::nullopt;
  if (!since) since = TaintSince(node, unreachable ? kUnreachableTaint : kNotReadyTaint);
  NodeFaultSignal s;
  s.cause = unreachable ? NodeFaultCause::kUnreachable : NodeFaultCause::kNotReady;
  s.signal = "Ready=" + status + SinceText(since) + BecauseText(detail);
  s.since = since;
  return s;
}

std::optional<NodeFaultSignal> FromNodeControllerTaints(const NodeInfo& node) {
  for (const auto& [key, cause] : {std::pair{kUnreachableTaint, NodeFaultCause::kUnreachable},
                                   std::pair{kNotReadyTaint, NodeFaultCause::kNotReady}}) {
    const engine::Taint* taint = FindTaint(node, key);
    if (taint == nullptr) continue;
    NodeFaultSignal s;
    s.cause = cause;
    s.since = TaintSince(node, key);
    s.signal = TaintText(*taint) + SinceText(s.since);
    return s;
  }
  return std::nullopt;
}

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsLowerAlnum(char c) { return IsAlnum(c) && !std::isupper(static_cast<unsigned char>(c)); }

// A DNS-1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric.
bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (size_t start = 0;;) {
    const size_t dot = s.find('.', start);
    if (!IsDnsLabel(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

std::string_view NodeFaultCauseName(NodeFaultCause cause) {
  switch (cause) {
    case NodeFaultCause::kNotReady: return "NotReady";
    case NodeFaultCause::kUnreachable: return "Unreachable";
    case NodeFaultCause::kCondition: return "Condition";
    case NodeFaultCause::kGpuShortfall: return "GpuShortfall";
    case NodeFaultCause::kQuarantine: return "Quarantine";
  }
  return "Unknown";
}

bool IsQualifiedName(std::string_view text) {
  std::string_view name = text;
  if (const size_t slash = text.find('/'); slash != std::string_view::npos) {
    if (!IsDnsSubdomain(text.substr(0, slash))) return false;
    name = text.substr(slash + 1);
  }
  if (name.empty() || name.size() > 63 || !IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::optional<UnhealthyCondition> ParseUnhealthyCondition(std::string_view entry) {
  UnhealthyCondition out;
  const size_t eq = entry.find('=');
  out.type = std::string(entry.substr(0, eq));
  if (eq != std::string_view::npos) out.status = std::string(entry.substr(eq + 1));
  if (!IsQualifiedName(out.type)) return std::nullopt;
  if (out.status != "True" && out.status != "False" && out.status != "Unknown") return std::nullopt;
  return out;
}

const std::vector<UnhealthyCondition>& DefaultUnhealthyConditions() {
  static const std::vector<UnhealthyCondition> conditions = [] {
    std::vector<UnhealthyCondition> out;
    for (const char* type :
         {"KernelDeadlock", "ReadonlyFilesystem", "XfsShutdown",                        // node-problem-detector
          "GPUMissing", "XIDErrors", "NVLinkStatusInactive",                            // AKS
          "GpuMemWatch", "GpuNvlinkWatch", "GpuPcieWatch", "GpuSmWatch", "GpuInforomWatch",  // NVSentinel
          "GpuThermalWatch", "GpuPowerWatch", "GpuDriverWatch", "GpuMcuWatch", "GpuPmuWatch",
          "SysLogsXIDError", "SysLogsSXIDError", "SysLogsGPUFallenOff"}) {
      out.push_back({type, "True"});
    }
    out.push_back({"AcceleratedHardwareReady", "False"});  // The EKS node monitoring agent.
    return out;
  }();
  return conditions;
}

const std::vector<std::string>& DefaultQuarantineTaints() {
  static const std::vector<std::string> taints{
      "nvidia.com/gpu-xid-error", "nvidia.com/gpu-nvlink-error", "nvidia.com/syslog-xid-error", "nvidia.com/gpu-error",
      "amd-gpu-unhealthy", "remediator.aks.microsoft.com/unschedulable"};
  return taints;
}

std::optional<NodeFaultSignal> ReadLostHost(const NodeInfo& node) {
  if (auto ready = node.conditions.find("Ready"); ready != node.conditions.end()) {
    // The kubelet's word is fresher than the node controller's taints, which follow it.
    if (ready->second == "True") return std::nullopt;
    if (ready->second == "False" || ready->second == "Unknown") return FromReadyCondition(node, ready->second);
  }
  return FromNodeControllerTaints(node);
}

std::vector<NodeFaultSignal> ReadUnhealthyConditions(const NodeInfo& node, const std::vector<UnhealthyCondition>& rules) {
  std::vector<NodeFaultSignal> out;
  for (const UnhealthyCondition& rule : rules) {
    auto it = node.conditions.find(rule.type);
    if (it == node.conditions.end() || it->second != rule.status) continue;
    const ConditionDetail* detail = DetailOf(node, rule.type);
    NodeFaultSignal& s = out.emplace_back();
    s.cause = NodeFaultCause::kCondition;
    s.since = detail ? EpochSeconds(detail->last_transition_time) : std::nullopt;
    s.signal = rule.type + "=" + rule.status + SinceText(s.since) + BecauseText(detail);
    s.host_alive = true;
  }
  return out;
}

std::optional<NodeFaultSignal> ReadQuarantine(const NodeInfo& node, const std::vector<std::string>& taint_keys) {
  // A taint alone may be an admin's way to keep pods off; cordoned as well, the node is being taken out.
  if (!node.unschedulable) return std::nullopt;
  for (const engine::Taint& taint : node.taints) {
    if (std::find(taint_keys.begin(), taint_keys.end(), taint.key) == taint_keys.end()) continue;
    NodeFaultSignal s;
    s.cause = NodeFaultCause::kQuarantine;
    s.since = TaintSince(node, taint.key);
    s.signal = "cordoned, " + TaintText(taint) + SinceText(s.since);
    s.host_alive = true;
    return s;
  }
  return std::nullopt;
}

std::optional<NodeFaultSignal> ReadGpuShortfall(const NodeInfo& node, int gpus_allocated) {
  std::int64_t allocatable = 0;
  for (const auto& [name, text] : node.allocatable) {
    if (name != kGpuResource) continue;
    try {
      allocatable = std::max<std::int64_t>(0, ParseQuantityValue(text));
    } catch (const DecodeError&) {
      return std::nullopt;
    }
  }
  if (allocatable >= gpus_allocated) return std::nullopt;
  NodeFaultSignal s;
  s.cause = NodeFaultCause::kGpuShortfall;
  s.gpus_allocatable = static_cast<int>(allocatable);
  s.gpus_allocated = gpus_allocated;
  s.signal = std::string(kGpuResource) + " allocatable " + std::to_string(allocatable) + " < " +
             std::to_string(gpus_allocated) + " held by pods";
  s.host_alive = true;
  return s;
}

std::vector<NodeFaultSignal> ReadNodeFaults(const NodeInfo& node, const NodeFaultRules& rules) {
  std::vector<NodeFaultSignal> out;
  if (auto lost = ReadLostHost(node)) out.push_back(std::move(*lost));
  for (NodeFaultSignal& s : ReadUnhealthyConditions(node, rules.unhealthy_conditions)) out.push_back(std::move(s));
  if (auto quarantine = ReadQuarantine(node, rules.quarantine_taints)) out.push_back(std::move(*quarantine));
  return out;
}

}  // namespace gangplank::cache
