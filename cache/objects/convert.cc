#include "cache/objects/convert.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "base/pod_requests.h"
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

// A resource list in the engine's units. A malformed quantity is named by its full path (`at`.`list`.name),
// a negative one by its resource (`at`.name), whichever list it came from.
base::Amounts AmountsOf(const ResourceList& list, const std::string& at, const std::string& kind) {
  base::Amounts out;
  for (const auto& [name, text] : list) {
    std::int64_t amount = 0;
    try {
      amount = Amount(name, text);
    } catch (const DecodeError& e) {
      throw e.Within((kind.empty() ? at : at + "." + kind) + "." + name);
    }
    if (amount < 0) throw DecodeError(at + "." + name, "negative quantity");
    out.emplace_back(name, amount);
  }
  return out;
}

base::ContainerAmounts ContainerOf(const ContainerResources& c, const std::string& at) {
  return {AmountsOf(c.requests, at + ".resources", "requests"), AmountsOf(c.limits, at + ".resources", "limits"), c.sidecar};
}

std::vector<base::ContainerAmounts> ContainersOf(const std::vector<ContainerResources>& cs, const std::string& at) {
  std::vector<base::ContainerAmounts> out;
  for (size_t i = 0; i < cs.size(); ++i) out.push_back(ContainerOf(cs[i], at + "[" + std::to_string(i) + "]"));
  return out;
}

std::int64_t Get(const std::map<std::string, std::int64_t>& m, std::string_view key) {
  auto it = m.find(std::string(key));
  return it == m.end() ? 0 : it->second;
}

std::string JoinProblems(const std::vector<std::string>& problems) {
  std::string out;
  for (const std::string& p : problems) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// The annotation's models that the claims' devices have; the devices' models when the annotation names none.
// Nothing in common leaves a model no node has, so the pod waits rather than lands on the wrong GPU.
std::vector<std::string> NarrowModels(const std::vector<std::string>& allowed, const std::vector<std::string>& devices) {
  if (allowed.empty()) return devices;
  std::vector<std::string> out;
  for (const std::string& m : allowed) {
    if (std::find(devices.begin(), devices.end(), m) != devices.end()) out.push_back(m);
  }
  if (out.empty()) out.push_back("(none of " + allowed.front() + " and the claimed devices' models)");
  return out;
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

std::map<std::string, std::int64_t> EffectiveRequests(const PodInfo& pod) {
  std::optional<base::ContainerAmounts> pod_level;
  if (pod.pod_resources) pod_level = ContainerOf(*pod.pod_resources, "spec");
  const base::Amounts total = base::PodRequests(ContainersOf(pod.containers, "spec.containers"),
                                                ContainersOf(pod.init_containers, "spec.initContainers"),
                                                pod_level ? &*pod_level : nullptr, AmountsOf(pod.overhead, "spec.overhead", ""));
  return std::map<std::string, std::int64_t>(total.begin(), total.end());
}

engine::PodRequest ToPodRequest(const PodInfo& pod) {
  const auto amounts = EffectiveRequests(pod);
  engine::PodRequest r;
  r.host.cpu_milli = Get(amounts, "cpu");
  r.host.memory_mib = (Get(amounts, "memory") + kMiB - 1) / kMiB;
  std::int64_t gpus = Get(amounts, kGpuResource);
  std::int64_t milli = Get(amounts, kGpuMilliResource);
  if (gpus > 0 && milli > 0) {
    throw DecodeError("spec.containers", "asks for both " + std::string(kGpuResource) + " and " +
                                             std::string(kGpuMilliResource) + "; use one of them");
  }
  if (const DraDemand* dra = pod.dra.get()) {
    // A pod not yet bound whose claims cannot be had waits, saying why; a bound one holds what it has.
    if (!dra->problems.empty() && pod.node_name.empty()) throw DecodeError("spec.resourceClaims", JoinProblems(dra->problems));
    gpus += dra->whole_gpus;
    if (gpus > 0 || milli + dra->partition_milli > engine::kMilliPerGpu) {
      // Whole GPUs with partitions, or partitions of more than one GPU: counted as whole GPUs, rounded up.
      gpus += (milli + dra->partition_milli + engine::kMilliPerGpu - 1) / engine::kMilliPerGpu;
      milli = 0;
    } else {
      milli += dra->partition_milli;
    }
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
  if (pod.dra && !pod.dra->models.empty()) r.gpu_models = NarrowModels(r.gpu_models, pod.dra->models);
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
  spec.gpu_count += node.dra.gpus;  // A node may have both (KEP-5004 serves one name from one only).
  if (auto it = node.labels.find(std::string(kGpuProductLabel)); it != node.labels.end()) spec.gpu_model = it->second;
  else spec.gpu_model = node.dra.model;
  spec.labels = node.labels;
  spec.taints = node.taints;
  // A node under a termination notice, or with a fault by the default rules (a lost host, an unhealthy
  // GPU condition, a quarantine), takes no new pods, as if cordoned: a gang restarted off it is not
  // planned back onto it.
  spec.unschedulable = node.unschedulable || ReadTerminationNotice(node).notice.has_value() || !ReadNodeFaults(node).empty();
  return spec;
}

bool IsInterested(const PodInfo& pod, const std::vector<std::string>& managed) {
  if (managed.empty() || !pod.resource_claims.empty()) return true;
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
