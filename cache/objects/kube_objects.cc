#include "cache/objects/kube_objects.h"

#include <algorithm>

#include "cache/objects/conventions.h"

namespace gangplank::cache {
namespace {

std::string ValueOf(const std::map<std::string, std::string>& map, std::string_view key) {
  auto it = map.find(std::string(key));
  return it == map.end() ? std::string() : it->second;
}

}  // namespace

bool IsFinishedPhase(std::string_view phase) { return phase == "Succeeded" || phase == "Failed"; }

std::string PodInfo::Label(std::string_view key) const { return ValueOf(labels, key); }

std::string PodInfo::Annotation(std::string_view key) const { return ValueOf(annotations, key); }

std::optional<std::string> PodInfo::QueueLabel() const {
  auto it = labels.find(std::string(kQueueLabel));
  return it == labels.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::string PodInfo::PlannedNode() const { return Annotation(kPlannedNodeAnnotation); }

bool PodInfo::HasAdmissionGate() const {
  return std::find(scheduling_gates.begin(), scheduling_gates.end(), kAdmissionGate) != scheduling_gates.end();
}

}  // namespace gangplank::cache
