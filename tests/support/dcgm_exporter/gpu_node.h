// The state of fake_dcgm_exporter: one node's GPUs, which pod holds which of them at what utilization,
// and the exposition dcgm-exporter would serve for it. Thread-safe (the server's io threads share it).
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::testing::dcgm {

struct PodLoad {
  std::string ns;
  std::string pod;
  std::string container = "main";
  int gpus = 1;
  double util = 0;  // percent, 0..100, the same on each of the pod's GPUs
};

// What GET /metrics answers: the metrics, a body that is not the text format, or HTTP 500.
enum class Mode { kOk, kGarbage, kError };

struct GpuNodeOptions {
  std::string hostname = "gpu-node-0";
  std::string model = "NVIDIA H100 80GB HBM3";
  int gpus = 8;
  int fb_total_mib = 81559;
};

class GpuNode {
 public:
  explicit GpuNode(GpuNodeOptions options) : options_(std::move(options)) {}

  // Replaces every pod's load; pods take GPUs in order. Returns "" or why not (more GPUs than the node has).
  std::string SetLoads(std::vector<PodLoad> loads);
  void SetMode(Mode mode);
  Mode mode() const;
  // The Prometheus text exposition of every GPU, idle ones with empty pod labels as dcgm-exporter shows them.
  std::string Exposition() const;

 private:
  GpuNodeOptions options_;
  mutable std::mutex mutex_;
  std::vector<PodLoad> loads_;
  Mode mode_ = Mode::kOk;
};

}  // namespace gangplank::testing::dcgm
