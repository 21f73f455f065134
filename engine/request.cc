#include "engine/request.h"

namespace gangplank::engine {

bool Toleration::Tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (op == "Exists") return key.empty() || key == taint.key;
  return key == taint.key && value == taint.value;
}

std::string ValidateRequest(const PodRequest& request) {
  if (request.host.cpu_milli < 0 || request.host.memory_mib < 0) return "negative CPU or memory request";
  if (request.gpu_count < 0) return "negative GPU count";
  if (request.gpu_milli < 0 || request.gpu_milli > kMilliPerGpu) return "per-GPU share outside 0..1000 milli";
  if (request.gpu_count > 1 && request.gpu_milli != kMilliPerGpu) {
    return "a pod of several GPUs must take whole GPUs (gpu_milli 1000)";
  }
  if (request.gpu_count > 0 && request.gpu_milli == 0) return "GPU count without a per-GPU share";
  return {};
}

}  // namespace gangplank::engine
