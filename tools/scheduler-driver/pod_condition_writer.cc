#include "tools/scheduler-driver/pod_condition_writer.h"

#include <spdlog/spdlog.h>

#include "base/time_format.h"
#include "logging/json_log.h"

namespace gangplank::scheduler_driver {

bool PodConditionWriter::SetNotScheduled(const kube::GenericObject& pod, const std::string& reason,
                                         const std::string& message) {
  const kube::Json object = kube::Json::parse(pod.json, nullptr, false);
  kube::Json current;
  if (object.is_object()) {
    const kube::Json conditions = object.value("/status/conditions"_json_pointer, kube::Json::array());
    for (const auto& c : conditions) {
      if (c.is_object() && c.value("type", "") == "PodScheduled") current = c;
    }
  }
  const bool was_false = current.is_object() && current.value("status", "") == "False";
  if (was_false && current.value("reason", "") == reason && current.value("message", "") == message) return false;
  const kube::Json since = was_false && current.contains("lastTransitionTime")
                               ? current["lastTransitionTime"]
                               : kube::Json(base::FormatTime(std::chrono::system_clock::now()));
  const kube::Json patch{{"status",
                          {{"conditions", kube::Json::array({{{"type", "PodScheduled"},
                                                              {"status", "False"},
                                                              {"reason", reason},
                                                              {"message", message},
                                                              {"lastProbeTime", nullptr},
                                                              {"lastTransitionTime", since}}})}}}};
  try {
    client_->Patch(kube::resources::Pods(), pod.meta.namespace_, pod.meta.name, kube::PatchType::kStrategicMerge, patch,
                   "status");
    return true;
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot update the pod's PodScheduled condition", "pod", pod.meta.key(), "error",
                                     e.what()));
    return false;
  }
}

}  // namespace gangplank::scheduler_driver
