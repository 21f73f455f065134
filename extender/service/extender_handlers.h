// The extender verbs as functions from request body to reply (status and JSON body), independent of
// the HTTP stack so tests, the fuzz target and benchmarks call them directly.
//
// Replies follow kube-scheduler's reading (its pkg/scheduler/extender.go): 200 with the verb's result;
// a problem with the pod itself (bad quantity, cache not synced) is a 200 filter reply with Error set;
// a body that is not the verb's JSON is 400 with {"Error": "<what and where>"}; a bug is 500 likewise.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cache/dra/gpu_inventory.h"
#include "cache/objects/plan_seal.h"
#include "engine/scoring_policy.h"
#include "extender/protocol/decode.h"
#include "extender/service/extender_metrics.h"
#include "extender/service/object_pool.h"
#include "extender/service/preemption_grants.h"
#include "extender/service/unseen_pods.h"
#include "cache/state/cluster_state.h"

namespace gangplank::extender {

struct HandlerOptions {
  // kube-scheduler's managedResources for this extender: pods using none of them are passed through
  // untouched, as if the extender had not been asked. Empty: every pod is ours.
  std::vector<std::string> managed_resources;
  std::string policy = "fragpack";     // engine/policies/registry.h name.
  size_t workload_sample = 20000;      // Pods the policy's workload model is built from.
  // A scheduled pod's plan counts only with a valid seal (cache/objects/plan_seal.h); null: trusted.
  std::shared_ptr<const cache::PlanSeal> plan_seal;
  // The DRA inventory (the cache feed's), so a pod's claims count; null: containers only.
  const cache::dra::GpuInventory* gpus = nullptr;
};

struct Reply {
  int status = 200;
  std::string body;
};

class ExtenderHandlers {
 public:
  // Throws std::invalid_argument for an unknown policy name. With `unseen`, filter remembers there the
  // pods the cache does not know yet, for the bind verb to assume (unseen_pods.h).
  ExtenderHandlers(const cache::ClusterState& state, ExtenderMetrics& metrics, HandlerOptions options,
                   UnseenPods* unseen = nullptr);

  Reply Filter(std::string& body);
  Reply Prioritize(std::string& body);
  Reply Preempt(std::string& body);

 private:
  template <typename F>
  Reply Timed(std::string_view verb, std::string_view args_type, F&& handle);
  std::uint64_t PolicyEpoch(const cache::StateView& view);
  std::unique_ptr<engine::ScoringPolicy> MakePolicy();
  // The engine's request for a pod of a request body, its DRA claims counted. Throws cache::DecodeError.
  engine::PodRequest RequestOf(cache::PodInfo& pod) const;

  const cache::ClusterState& state_;
  ExtenderMetrics& metrics_;
  HandlerOptions options_;
  UnseenPods* unseen_;
  ObjectPool<RequestDecoder> decoders_;
  ObjectPool<engine::ScoringPolicy> policies_;
  PreemptionGrants grants_;  // Preempt answers, read by filter when kube-scheduler retries the preemptor.

  std::mutex workload_mu_;
  std::shared_ptr<const std::vector<engine::PodRequest>> workload_;
  std::uint64_t workload_generation_ = ~std::uint64_t{0};
  size_t workload_pods_ = 0;
  std::uint64_t epoch_ = 0;
};

}  // namespace gangplank::extender
