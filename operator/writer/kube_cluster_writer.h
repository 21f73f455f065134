// ClusterWriter on the API server: merge patches with resourceVersion preconditions for pods (the
// API server answers 409 when the pod moved on), the Eviction API, strategic merge patches on
// pods/status for conditions (other actors' conditions survive), core/v1 Events and status
// subresource writes for GPUPools and Queues.
// Reports (Events, pod conditions, GPUPool and Queue status) go through a client of their own when one is
// given, so they never wait in the rate limiter behind admission writes, as kube-scheduler's events have
// a client of their own beside the one that binds.
#pragma once

#include <memory>

#include "cache/objects/plan_seal.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::cache::dra {
class GpuInventory;
}  // namespace gangplank::cache::dra

namespace gangplank::op {

class KubeClusterWriter : public ClusterWriter {
 public:
  // With a `seal`, every plan written carries its seal, and pods read back lose a plan without a valid one.
  // With `gpus` (the feed's DRA inventory), pods read back carry their claims' GPU demand as the informer's
  // do: the operator assumes each pod it wrote, and a claim pod assumed without it would count no GPU
  // against its queue until the informer's copy arrived (a queue limit raced past).
  explicit KubeClusterWriter(std::shared_ptr<kube::Client> client, std::string component = "gangplank-operator",
                             std::shared_ptr<const cache::PlanSeal> seal = nullptr,
                             std::shared_ptr<kube::Client> reporting_client = nullptr,
                             const cache::dra::GpuInventory* gpus = nullptr);

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
  // The merge patch with the pod's resourceVersion as precondition, made again once on a fresh read when
  // only the pod's status moved (pod_drift.h). Throws PodChanged otherwise.
  cache::PodInfo PatchPod(const cache::PodInfo& pod, const nlohmann::json& patch);
  cache::PodInfo PatchAt(const cache::PodInfo& pod, nlohmann::json patch);

  nlohmann::json PlanPatch(const cache::PodInfo& pod, const std::string& node, const std::string& admission_id) const;
  // Removes the admission gate and pins the pod to `node` (see ClusterWriter::ReleasePod).
  static nlohmann::json ReleasePatch(const cache::PodInfo& pod, const std::string& node);

  std::shared_ptr<kube::Client> client_;
  std::shared_ptr<kube::Client> reporting_;
  kube::EventRecorder events_;
  std::shared_ptr<const cache::PlanSeal> seal_;
  const cache::dra::GpuInventory* gpus_;
};

// A pod object as the API server returns it, as the cache reads it (dropping a plan `seal` refuses, with its
// claims' GPU demand when `gpus` is given).
cache::PodInfo PodInfoFromJson(const nlohmann::json& pod, const cache::PlanSeal* seal = nullptr,
                               const cache::dra::GpuInventory* gpus = nullptr);

}  // namespace gangplank::op
