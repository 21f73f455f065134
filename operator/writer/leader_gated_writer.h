// A ClusterWriter that writes only while this replica still holds the lease. The controller's leader
// flag is cleared when the elector's loop comes back from a renew call, and one renew can outlast the
// lease by its retries; this gate asks the elector itself (kube::LeaderElector::IsLeader: the last
// successful renewal is younger than the renew deadline) right before every write, so a replica that
// has lost the lease never plans, releases or evicts beside the new leader. Reads pass through.
#pragma once

#include <functional>
#include <stdexcept>

#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

// A write refused because this replica no longer leads.
class NotLeader : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LeaderGatedWriter : public ClusterWriter {
 public:
  // `leading` is asked before every write; both must outlive the writer.
  LeaderGatedWriter(ClusterWriter& inner, std::function<bool()> leading) : inner_(inner), leading_(std::move(leading)) {}

  cache::PodInfo PlanPod(const cache::PodInfo& pod, const std::string& node, const std::string& admission_id) override;
  cache::PodInfo UnplanPod(const cache::PodInfo& pod) override;
  cache::PodInfo ReleasePod(const cache::PodInfo& pod) override;
  cache::PodInfo PlanAndReleasePod(const cache::PodInfo& pod, const std::string& node, const std::string& admission_id) override;
  std::optional<cache::PodInfo> ReadPod(const std::string& namespace_, const std::string& name) override;
  cache::PodInfo AnnotatePod(const cache::PodInfo& pod, const AnnotationEdits& edits) override;
  EvictResult EvictPod(const cache::PodInfo& pod, std::optional<int> grace_seconds) override;
  EvictResult DeletePod(const cache::PodInfo& pod, int grace_seconds) override;
  cache::PodInfo CreatePod(const nlohmann::json& pod) override;
  std::vector<nlohmann::json> DisruptionBudgets(const std::string& namespace_) override;
  void SetPodCondition(const cache::PodInfo& pod, const ConditionWrite& condition) override;
  void SetPodGroupCondition(const std::string& namespace_, const std::string& name, const ConditionWrite& condition) override;
  void RecordEvent(const EventWrite& event) override;
  bool WriteStatus(const std::string& plural, const std::string& name, const nlohmann::json& fields,
                   const std::vector<ConditionWrite>& conditions) override;

 private:
  void RequireLead(const char* write) const;  // Throws NotLeader.

  ClusterWriter& inner_;
  std::function<bool()> leading_;
};

}  // namespace gangplank::op
