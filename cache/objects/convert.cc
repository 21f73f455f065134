#include "cache/objects/convert.h"

#include <algorithm>
#include <limits>
#include <map>

#include "cache/objects/conventions.h"
#include "cache/objects/decode_error.h"
#include "cache/objects/quantity.h"
#include "cache/objects/node_fault.h"
#include "cache/objects/termination_notice.h"

namespace gangplank::cache {
namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

// Amount of one resource in the unit the engine wants: milli for CPU, bytes for memory, units otherwise.
std::int64_t Amount(const std::string& resource, const std::string& text) {
  return resource == "cpu" ? ParseQuantityMilli(text) : ParseQuantityValue(text);
}

std::int64_t SaturatingAdd(std::int64_t a, std::int64_t b) {
  if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) return std::numeric_limits<std::int64_t>::max();
  return a + b;
}

// Requests of one container, limits standing in for missing requests (the API server's defaulting).
std::map<std::string, std::int64_t> ContainerAmounts(const ContainerResources& c) {
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, text] : c.requests) {
    try {
      out[name] = Amount(name, text);
    } catch (const DecodeError& e) {
      throw e.Within("resources.requests." + name);
    }
  }
  for (const auto& [name, text] : c.limits) {
    if (out.count(name)) continue;
    try {
      out[name] = Amount(name, text);
    } catch (const DecodeError& e) {
      throw e.Within("resources.limits." + name);
    }
  }
  for (const auto& [name, amount] : out) {
    if (amount < 0) throw DecodeError("resources." + name, "negative quantity");
  }
  return out;
}

std::map<std::string, std::int64_t> EffectiveAmounts(const PodInfo& pod) {
  std::map<std::string, std::int64_t> sum;
  for (size_t i = 0; i < pod.containers.size(); ++i) {
    try {
      for (const auto& [name, amount] : ContainerAmounts(pod.containers[i])) sum[name] = SaturatingAdd(sum[name], amount);
    } catch (const DecodeError& e) {
      throw e.Within("spec.containers[" + std::to_string(i) + "]");
    }
  }
  for (size_t i = 0; i < pod.init_containers.size(); ++i) {
    try {
      for (const auto& [name, amount] : ContainerAmounts(pod.init_containers[i])) sum[name] = std::max(sum[name], amount);
    } catch (const DecodeError& e) {
      throw e.Within("spec.initContainers[" + std::to_string(i) + "]");
    }
  }
  for (const auto& [name, text] : pod.overhead) {
    try {
      sum[name] = SaturatingAdd(sum[name], Amount(name, text));
    } catch (const DecodeError& e) {
      throw e.Within("spec.overhead." + name);
    }
  }
  return sum;
}

std::int64_t Get(const std::map<std::string, std::int64_t>& m, std::string_view key) {
  auto it = m.find(std::string(key));
  return it == m.end() ? 0 : it->second;
}

int ClampToInt(std::int64_t v) {
  return static_cast<int>(std::min<std::int64_t>(v, std::numeric_limits<int>::max()));
}

}  // namespace

std::vector<std::string> SplitGpuModels(std::string_view annotation) {
  std::vector<std::string> models;
  size_t start = 0;
  while (start <= annotation.size()) {
    size_t end = annotation.find('|', start);
    if (end == std::string_view::npos) end = annotation.size();
    std::string_view part = annotation.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) models.emplace_back(part);
    start = end + 1;
  }
  return models;
}

engine::PodRequest ToPodRequest(const PodInfo& pod) {
  const auto amounts = EffectiveAmounts(pod);
  engine::PodRequest r;
  r.host.cpu_milli = Get(amounts, "cpu");
  r.host.memory_mib = (Get(amounts, "memory") + kMiB - 1) / kMiB;
  const std::int64_t gpus = Get(amounts, kGpuResource);
  const std::int64_t milli = Get(amounts, kGpuMilliResource);
  if (gpus > 0 && milli > 0) {
    throw DecodeError("spec.containers", "asks for both " + std::string(kGpuResource) + " and " +
                                             std::string(kGpuMilliResource) + "; use one of them");
  }
  if (gpus > 0) {
    r.gpu_count = ClampToInt(gpus);
    r.gpu_milli = engine::kMilliPerGpu;
  } else if (milli > 0) {
    if (milli > engine::kMilliPerGpu) {
      throw DecodeError("spec.containers", std::string(kGpuMilliResource) + " " + std::to_string(milli) +
                                               " exceeds one GPU (1000); ask for whole GPUs with " +
                                               std::string(kGpuResource));
    }
    r.gpu_count = 1;
    r.gpu_milli = static_cast<engine::MilliGpu>(milli);
  }
  r.gpu_models = SplitGpuModels(pod.Annotation(kGpuModelsAnnotation));  // Absent: any model.
  r.node_selector = pod.node_selector;
  r.tolerations = pod.tolerations;
  if (std::string why = engine::ValidateRequest(r); !why.empty()) throw DecodeError("spec", why);
  return r;
}

engine::NodeSpec ToNodeSpec(const NodeInfo& node) {
  engine::NodeSpec spec;
  spec.name = node.name;
  for (const auto& [name, text] : node.allocatable) {
    try {
      if (name == "cpu") spec.capacity.cpu_milli = std::max<std::int64_t>(0, ParseQuantityMilli(text));
      else if (name == "memory") spec.capacity.memory_mib = std::max<std::int64_t>(0, ParseQuantityValue(text)) / kMiB;
      else if (name == kGpuResource) spec.gpu_count = ClampToInt(std::max<std::int64_t>(0, ParseQuantityValue(text)));
    } catch (const DecodeError& e) {
      throw e.Within("status.allocatable." + name);
    }
  }
  if (auto it = node.labels.find(std::string(kGpuProductLabel)); it != node.labels.end()) spec.gpu_model = it->second;
  spec.labels = node.labels;
  spec.taints = node.taints;
  // A node under a termination notice, or with a fault by the default rules (a lost host, an unhealthy
  // GPU condition, a quarantine), takes no new pods, as if cordoned: a gang restarted off it is not
  // planned back onto it.
  spec.unschedulable = node.unschedulable || ReadTerminationNotice(node).notice.has_value() || !ReadNodeFaults(node).empty();
  return spec;
}

bool IsInterested(const PodInfo& pod, const std::vector<std::string>& managed) {
  if (managed.empty()) return true;
  auto names = [&](const ResourceList& list) {
    return std::any_of(list.begin(), list.end(), [&](const auto& entry) {
      return std::find(managed.begin(), managed.end(), entry.first) != managed.end();
    });
  };
  auto any = [&](const std::vector<ContainerResources>& cs) {
    return std::any_of(cs.begin(), cs.end(), [&](const ContainerResources& c) { return names(c.requests) || names(c.limits); });
  };
  return any(pod.containers) || any(pod.init_containers);
}

}  // namespace gangplank::cache
