#include "operator/writer/checkpoint_request.h"

#include <spdlog/spdlog.h>

#include "cache/objects/conventions.h"
#include "logging/json_log.h"

namespace gangplank::op {
namespace {

// Writes `edits` on each pod; returns how many were written.
int AnnotateEach(ClusterWriter& writer, const std::vector<cache::PodInfo>& pods, const AnnotationEdits& edits,
                 const char* what, const std::function<void(const cache::PodInfo&)>& assume) {
  int written = 0;
  for (const cache::PodInfo& pod : pods) {
    try {
      assume(writer.AnnotatePod(pod, edits));
      ++written;
    } catch (const std::exception& e) {
      spdlog::warn(logging::JsonFields(what, "namespace", pod.namespace_, "pod", pod.name, "error", e.what()));
    }
  }
  return written;
}

}  // namespace

int RequestCheckpoint(ClusterWriter& writer, const std::vector<cache::PodInfo>& members, const std::string& deadline,
                      std::string_view cause, const std::function<void(const cache::PodInfo&)>& assume) {
  const AnnotationEdits edits{{std::string(cache::kCheckpointRequestedAnnotation), deadline},
                              {std::string(cache::kCheckpointCauseAnnotation), std::string(cause)}};
  return AnnotateEach(writer, members, edits, "cannot ask a pod to checkpoint", assume);
}

int WithdrawCheckpoint(ClusterWriter& writer, const std::vector<cache::PodInfo>& members,
                       const std::function<void(const cache::PodInfo&)>& assume) {
  std::vector<cache::PodInfo> asked;
  for (const cache::PodInfo& pod : members) {
    if (pod.HasAnnotation(cache::kCheckpointRequestedAnnotation) || pod.HasAnnotation(cache::kCheckpointCauseAnnotation)) {
      asked.push_back(pod);
    }
  }
  const AnnotationEdits edits{{std::string(cache::kCheckpointRequestedAnnotation), std::nullopt},
                              {std::string(cache::kCheckpointCauseAnnotation), std::nullopt}};
  return AnnotateEach(writer, asked, edits, "cannot take back a checkpoint request", assume);
}

}  // namespace gangplank::op
