// dcgm-exporter's exposition for a simulated node. Metric names, help texts and types are those of
// dcgm-exporter's default counters and DCP metrics lists (default-counters.csv, dcp-metrics-included.csv);
// the label set and its order (gpu, UUID, device, modelName, Hostname, then container, namespace, pod from
// the kubelet's pod resources API) are those its /metrics shows on Kubernetes.
#include "tests/support/dcgm_exporter/gpu_node.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace gangplank::testing::dcgm {
namespace {

struct Gpu {
  int index = 0;
  const PodLoad* load = nullptr;  // null: idle
};

struct Metric {
  const char* name;
  const char* type;
  const char* help;
  double (*value)(double util, int fb_total_mib);
};

const std::vector<Metric>& Metrics() {
  static const std::vector<Metric> kMetrics = {
      {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", [](double u, int) { return std::round(u); }},
      {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).",
       [](double u, int) { return std::round(u / 2); }},
      {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).",
       [](double u, int total) { return total - std::round(total * u / 100); }},
      {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).",
       [](double u, int total) { return std::round(total * u / 100); }},
      {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.",
       [](double u, int) { return u / 100; }},
  };
  return kMetrics;
}

// A stable, well-formed GPU UUID per node and index (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx).
std::string Uuid(const std::string& hostname, int index) {
  const auto hash =
      static_cast<unsigned long long>(std::hash<std::string>{}(hostname)) ^ static_cast<unsigned long long>(index);
  char text[64];
  std::snprintf(text, sizeof text, "GPU-%08llx-%04llx-%04llx-%04llx-%012llx", hash & 0xffffffffULL,
                (hash >> 32) & 0xffff, (hash >> 48) & 0xffff, static_cast<unsigned long long>(index),
                hash & 0xffffffffffffULL);
  return text;
}

std::string LabelSet(const GpuNodeOptions& node, const Gpu& gpu) {
  const PodLoad empty{"", "", ""};
  const PodLoad& load = gpu.load ? *gpu.load : empty;
  std::ostringstream out;
  out << "{gpu=\"" << gpu.index << "\",UUID=\"" << Uuid(node.hostname, gpu.index) << "\",device=\"nvidia" << gpu.index
      << "\",modelName=\"" << node.model << "\",Hostname=\"" << node.hostname << "\",container=\"" << load.container
      << "\",namespace=\"" << load.ns << "\",pod=\"" << load.pod << "\"}";
  return out.str();
}

std::vector<Gpu> Assign(int gpus, const std::vector<PodLoad>& loads) {
  std::vector<Gpu> out;
  for (const auto& load : loads) {
    for (int i = 0; i < load.gpus; ++i) out.push_back(Gpu{static_cast<int>(out.size()), &load});
  }
  while (static_cast<int>(out.size()) < gpus) out.push_back(Gpu{static_cast<int>(out.size()), nullptr});
  return out;
}

}  // namespace

std::string GpuNode::SetLoads(std::vector<PodLoad> loads) {
  const int wanted =
      std::accumulate(loads.begin(), loads.end(), 0, [](int sum, const PodLoad& l) { return sum + l.gpus; });
  if (wanted > options_.gpus)
    return "the pods ask for " + std::to_string(wanted) + " GPUs, the node has " + std::to_string(options_.gpus);
  std::lock_guard lock(mutex_);
  loads_ = std::move(loads);
  return "";
}

void GpuNode::SetMode(Mode mode) {
  std::lock_guard lock(mutex_);
  mode_ = mode;
}

Mode GpuNode::mode() const {
  std::lock_guard lock(mutex_);
  return mode_;
}

std::string GpuNode::Exposition() const {
  std::lock_guard lock(mutex_);
  const std::vector<Gpu> gpus = Assign(options_.gpus, loads_);
  std::ostringstream out;
  for (const auto& metric : Metrics()) {
    out << "# HELP " << metric.name << ' ' << metric.help << "\n# TYPE " << metric.name << ' ' << metric.type << '\n';
    for (const auto& gpu : gpus) {
      const double util = gpu.load ? gpu.load->util : 0;
      out << metric.name << LabelSet(options_, gpu) << ' ' << metric.value(util, options_.fb_total_mib) << '\n';
    }
  }
  return out.str();
}

}  // namespace gangplank::testing::dcgm
