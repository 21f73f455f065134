#include "extender/decisions/reasons.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>

#include "cache/objects/conventions.h"

namespace gangplank::extender {
namespace {

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(sep)) + item;
  return out;
}

// A number as text on the stack, for Cat.
class Num {
 public:
  explicit Num(std::int64_t n) : size_(static_cast<size_t>(std::to_chars(buf_, buf_ + sizeof buf_, n).ptr - buf_)) {}
  operator std::string_view() const { return {buf_, size_}; }

 private:
  char buf_[24];
  size_t size_;
};

std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  AppendText(out, parts);
  return out;
}

// Sets `out` to a rejection, reusing its reason's buffer.
void Set(Rejection& out, std::string_view kind, std::initializer_list<std::string_view> reason, bool resolvable) {
  out.kind = kind;
  out.reason.clear();
  AppendText(out.reason, reason);
  out.resolvable = resolvable;
}

std::string Plural(std::int64_t n, std::string_view one, std::string_view many) {
  return Cat({Num(n), " ", n == 1 ? one : many});
}

std::optional<Rejection> ExplainIneligible(const engine::NodeSpec& spec, const engine::PodRequest& r) {
  if (spec.unschedulable) return Rejection{"cordoned", "node is cordoned (unschedulable)", false};
  if (r.WantsGpu() && !r.gpu_models.empty() &&
      std::find(r.gpu_models.begin(), r.gpu_models.end(), spec.gpu_model) == r.gpu_models.end()) {
    const std::string have = spec.gpu_model.empty() ? "no GPU model label (" + std::string(cache::kGpuProductLabel) + ")"
                                                    : "GPU model " + spec.gpu_model;
    return Rejection{"gpu_model", "node has " + have + ", pod allows only " + Join(r.gpu_models, "|"), false};
  }
  for (const auto& [key, value] : r.node_selector) {
    auto it = spec.labels.find(key);
    if (it == spec.labels.end()) {
      return Rejection{"node_selector", "node lacks label " + key + " (pod's nodeSelector wants " + value + ")", false};
    }
    if (it->second != value) {
      return Rejection{"node_selector",
                       "node label " + key + " is " + it->second + ", pod's nodeSelector wants " + value, false};
    }
  }
  for (const engine::Taint& taint : spec.taints) {
    if (taint.effect == "PreferNoSchedule") continue;
    const bool tolerated = std::any_of(r.tolerations.begin(), r.tolerations.end(),
                                       [&](const engine::Toleration& t) { return t.Tolerates(taint); });
    if (!tolerated) {
      return Rejection{"taint", "node has taint " + taint.key + (taint.value.empty() ? "" : "=" + taint.value) + ":" +
                                    taint.effect + " that the pod does not tolerate",
                       false};
    }
  }
  return std::nullopt;
}

void ExplainGpus(const cache::StateView& view, engine::NodeId node, const engine::NodeSummary& s,
                 const engine::PodRequest& r, Rejection& out) {
  if (r.IsSharing()) {
    if (s.gpu_count == 0) return Set(out, "gpu_total", {"needs a share of a GPU, node has no GPUs"}, false);
    return Set(out, "gpu_share",
               {"needs ", Num(r.gpu_milli), " milli-GPU on one GPU, the most free on any GPU is ",
                Num(s.largest_free_share)},
               true);
  }
  if (s.gpu_count < r.gpu_count) {
    return Set(out, "gpu_total",
               {"needs ", Plural(r.gpu_count, "GPU", "GPUs"), ", node has only ", Num(s.gpu_count), " in total"}, false);
  }
  const int reserved = view.ReservedWholeGpus(node);
  // Evicting bound pods can free everything but what planned pods hold.
  const bool resolvable = s.gpu_count - reserved >= r.gpu_count;
  Set(out, reserved > 0 && !resolvable ? "gpu_reserved" : "gpu_free",
      {"needs ", Num(r.gpu_count), r.gpu_count == 1 ? " free GPU" : " free GPUs", ", node has ", Num(s.fully_free_gpus)},
      resolvable);
  if (reserved > 0) AppendText(out.reason, {" (", Num(reserved), " more reserved for planned pods)"});
}

}  // namespace

void AppendText(std::string& out, std::initializer_list<std::string_view> parts) {
  size_t size = out.size();
  for (std::string_view p : parts) size += p.size();
  out.reserve(size);
  for (std::string_view p : parts) out.append(p);
}

std::string FormatGpus(std::int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  std::string frac = std::to_string(milli % 1000 + 1000).substr(1);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return std::to_string(milli / 1000) + "." + frac;
}

std::string FormatCpu(std::int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

std::string FormatMemory(std::int64_t mib) {
  return mib % 1024 == 0 ? std::to_string(mib / 1024) + "Gi" : std::to_string(mib) + "Mi";
}

void ExplainNoFit(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& r, Rejection& out) {
  if (auto ineligible = ExplainIneligible(view.cluster().spec(node), r)) {
    out = std::move(*ineligible);
    return;
  }
  ExplainNoCapacity(view, node, r, out);
}

Rejection ExplainNoFit(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& r) {
  Rejection out;
  ExplainNoFit(view, node, r, out);
  return out;
}

void ExplainNoCapacity(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& r, Rejection& out) {
  const engine::Cluster& cluster = view.cluster();
  const engine::NodeSummary& s = cluster.summary(node);  // The node's spec only where a total is named.
  if (s.free_cpu_milli < r.host.cpu_milli) {
    const std::int64_t total = cluster.spec(node).capacity.cpu_milli;
    if (total < r.host.cpu_milli) {
      return Set(out, "cpu", {"needs ", FormatCpu(r.host.cpu_milli), " CPU, node has ", FormatCpu(total),
                              " allocatable in total"}, false);
    }
    return Set(out, "cpu", {"needs ", FormatCpu(r.host.cpu_milli), " CPU, node has ", FormatCpu(s.free_cpu_milli),
                            " free"}, true);
  }
  if (s.free_memory_mib < r.host.memory_mib) {
    const std::int64_t total = cluster.spec(node).capacity.memory_mib;
    if (total < r.host.memory_mib) {
      return Set(out, "memory", {"needs ", FormatMemory(r.host.memory_mib), " memory, node has ", FormatMemory(total),
                                 " allocatable in total"}, false);
    }
    return Set(out, "memory", {"needs ", FormatMemory(r.host.memory_mib), " memory, node has ",
                               FormatMemory(s.free_memory_mib), " free"}, true);
  }
  if (r.WantsGpu()) return ExplainGpus(view, node, s, r, out);
  Set(out, "other", {"does not fit (engine)"}, true);
}

}  // namespace gangplank::extender
