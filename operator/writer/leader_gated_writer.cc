#include "operator/writer/leader_gated_writer.h"

#include <string>

namespace gangplank::op {

void LeaderGatedWriter::RequireLead(const char* write) const {
  if (!leading_()) throw NotLeader(std::string("not the leader any more: ") + write + " not written");
}

cache::PodInfo LeaderGatedWriter::PlanPod(const cache::PodInfo& pod, const std::string& node, const std::string& admission_id) {
  RequireLead("plan");
  return inner_.PlanPod(pod, node, admission_id);
}

cache::PodInfo LeaderGatedWriter::UnplanPod(const cache::PodInfo& pod) {
  RequireLead("plan roll-back");
  return inner_.UnplanPod(pod);
}

cache::PodInfo LeaderGatedWriter::ReleasePod(const cache::PodInfo& pod) {
  RequireLead("gate removal");
  return inner_.ReleasePod(pod);
}

cache::PodInfo LeaderGatedWriter::PlanAndReleasePod(const cache::PodInfo& pod, const std::string& node,
                                                    const std::string& admission_id) {
  RequireLead("plan and gate removal");
  return inner_.PlanAndReleasePod(pod, node, admission_id);
}

std::optional<cache::PodInfo> LeaderGatedWriter::ReadPod(const std::string& namespace_, const std::string& name) {
  return inner_.ReadPod(namespace_, name);
}

cache::PodInfo LeaderGatedWriter::AnnotatePod(const cache::PodInfo& pod, const AnnotationEdits& edits) {
  RequireLead("annotation");
  return inner_.AnnotatePod(pod, edits);
}

EvictResult LeaderGatedWriter::EvictPod(const cache::PodInfo& pod, std::optional<int> grace_seconds) {
  RequireLead("eviction");
  return inner_.EvictPod(pod, grace_seconds);
}

EvictResult LeaderGatedWriter::DeletePod(const cache::PodInfo& pod, int grace_seconds) {
  RequireLead("deletion");
  return inner_.DeletePod(pod, grace_seconds);
}

cache::PodInfo LeaderGatedWriter::CreatePod(const nlohmann::json& pod) {
  RequireLead("creation");
  return inner_.CreatePod(pod);
}

std::vector<nlohmann::json> LeaderGatedWriter::DisruptionBudgets(const std::string& namespace_) {
  return inner_.DisruptionBudgets(namespace_);
}

// Conditions, Events and status are best effort: a lost lease skips them quietly, as a failed write would.
void LeaderGatedWriter::SetPodCondition(const cache::PodInfo& pod, const ConditionWrite& condition) {
  if (leading_()) inner_.SetPodCondition(pod, condition);
}

void LeaderGatedWriter::SetPodGroupCondition(const std::string& namespace_, const std::string& name, const ConditionWrite& condition) {
  if (leading_()) inner_.SetPodGroupCondition(namespace_, name, condition);
}

void LeaderGatedWriter::RecordEvent(const EventWrite& event) {
  if (leading_()) inner_.RecordEvent(event);
}

bool LeaderGatedWriter::WriteStatus(const std::string& plural, const std::string& name, const nlohmann::json& fields,
                                    const std::vector<ConditionWrite>& conditions) {
  return leading_() && inner_.WriteStatus(plural, name, fields, conditions);
}

}  // namespace gangplank::op
