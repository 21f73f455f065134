#include "operator/writer/checkpoint_request.h"

#include <spdlog/spdlog.h>

#include "cache/objects/conventions.h"
#include "logging/json_log.h"

namespace gangplank::op {

int RequestCheckpoint(ClusterWriter& writer, const std::vector<cache::PodInfo>& members, const std::string& deadline,
                      const std::function<void(const cache::PodInfo&)>& assume) {
  int asked = 0;
  for (const cache::PodInfo& pod : members) {
    try {
      assume(writer.AnnotatePod(pod, std::string(cache::kCheckpointRequestedAnnotation), deadline));
      ++asked;
    } catch (const std::exception& e) {
      spdlog::warn(logging::JsonFields("cannot ask a pod to checkpoint", "namespace", pod.namespace_, "pod", pod.name,
                                       "error", e.what()));
    }
  }
  return asked;
}

}  // namespace gangplank::op
