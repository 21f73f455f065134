#include "extender/service/extender_handlers.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>

#include "engine/policies/registry.h"
#include "extender/decisions/filter.h"
#include "extender/decisions/preempt.h"
#include "extender/decisions/prioritize.h"
#include "cache/objects/convert.h"
#include "cache/objects/decode_error.h"
#include "extender/protocol/encode.h"
#include "logging/json_log.h"

namespace gangplank::extender {
namespace {

constexpr std::string_view kNotSynced = "gangplank-extender: the cluster-state cache has not synced yet";

std::string PodError(const cache::PodInfo& pod, const cache::DecodeError& e) {
  return "pod " + pod.Key() + ": " + e.what();
}

// A filter reply that lets every candidate through, in the mode the scheduler used.
ExtenderFilterResult PassAll(const ExtenderArgs& args) {
  ExtenderFilterResult r;
  if (args.node_names) {
    r.node_names = *args.node_names;
    r.names_plain = args.names_plain;
  }
  if (args.nodes) {
    r.nodes.emplace();
    for (const auto& n : *args.nodes) r.nodes->push_back(n.raw_json);
  }
  r.failed_nodes.emplace();
  r.failed_and_unresolvable_nodes.emplace();
  return r;
}

}  // namespace

ExtenderHandlers::ExtenderHandlers(const cache::ClusterState& state, ExtenderMetrics& metrics, HandlerOptions options,
                                   UnseenPods* unseen)
    : state_(state),
      metrics_(metrics),
      options_(std::move(options)),
      unseen_(unseen),
      decoders_([] { return std::make_unique<RequestDecoder>(); }),
      policies_([this] { return MakePolicy(); }) {
  engine::policies::FindPolicy(options_.policy);  // Throws for an unknown name, before serving.
}

template <typename F>
Reply ExtenderHandlers::Timed(std::string_view verb, std::string_view args_type, F&& handle) {
  const auto start = std::chrono::steady_clock::now();
  Reply reply;
  try {
    reply = handle();
  } catch (const cache::DecodeError& e) {
    reply = {400, EncodeErrorBody("cannot decode " + std::string(args_type) + ": " + e.what())};
  } catch (const std::exception& e) {
    spdlog::error(logging::JsonFields("extender verb failed", "verb", verb, "error", e.what()));
    reply = {500, EncodeErrorBody(std::string("internal error: ") + e.what())};
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  metrics_.ObserveRequest(verb, reply.status, took.count());
  return reply;
}

std::unique_ptr<engine::ScoringPolicy> ExtenderHandlers::MakePolicy() {
  std::shared_ptr<const std::vector<engine::PodRequest>> workload;
  {
    std::lock_guard lock(workload_mu_);
    workload = workload_;
  }
  static const std::vector<engine::PodRequest> kNone;
  return engine::policies::MakePolicy(options_.policy, workload ? *workload : kNone);
}

// Scoring policies memoise per node id and model the workload from the cache, so they are rebuilt
// when the cluster is rebuilt or the number of pods has moved by more than a tenth.
std::uint64_t ExtenderHandlers::PolicyEpoch(const cache::StateView& view) {
  std::lock_guard lock(workload_mu_);
  const size_t pods = view.pod_count();
  const bool stale = workload_generation_ != view.generation() || pods * 10 > workload_pods_ * 11 ||
                     pods * 11 < workload_pods_ * 10 || !workload_;
  if (stale) {
    workload_ = std::make_shared<const std::vector<engine::PodRequest>>(view.HeldRequests(options_.workload_sample));
    workload_generation_ = view.generation();
    workload_pods_ = pods;
    ++epoch_;
  }
  return epoch_;
}

engine::PodRequest ExtenderHandlers::RequestOf(cache::PodInfo& pod) const {
  if (options_.gpus != nullptr) pod.dra = options_.gpus->DemandOf(pod);
  return cache::ToPodRequest(pod);
}

Reply ExtenderHandlers::Filter(std::string& body) {
  return Timed("filter", "ExtenderArgs", [&]() -> Reply {
    auto decoder = decoders_.Take();  // Held while the reply is built: args.node_names views its buffer.
    ExtenderArgs args = decoder->DecodeExtenderArgs(body);
    cache::DropUnsealedPlan(args.pod, options_.plan_seal.get());
    if (!cache::IsInterested(args.pod, options_.managed_resources)) return {200, EncodeFilterResult(PassAll(args))};
    ExtenderFilterResult result;
    engine::PodRequest request;
    try {
      request = RequestOf(args.pod);
    } catch (const cache::DecodeError& e) {
      result.error = PodError(args.pod, e);
      return {200, EncodeFilterResult(result)};
    }
    if (!state_.synced()) {
      result.error = kNotSynced;
      return {200, EncodeFilterResult(result)};
    }
    const std::vector<std::string_view> names = args.CandidateNames();
    const std::shared_ptr<const PreemptionGrant> grant = grants_.Find(args.pod.uid);
    FilterVerdicts v = state_.Read([&](const cache::StateView& view) {
      if (unseen_ != nullptr && view.FindPod(args.pod.uid) == nullptr) unseen_->Remember(args.pod);
      return FilterNodes(view, args.pod, request, names, grant.get());
    });
    if (args.node_names) {
      result.names_plain = args.names_plain;  // Every name in the reply is one of the request's.
      result.node_names.emplace();
      result.node_names->reserve(v.passed.size());
      for (size_t i : v.passed) result.node_names->emplace_back(names[i]);
    } else if (args.nodes) {
      result.nodes.emplace();
      result.nodes->reserve(v.passed.size());
      for (size_t i : v.passed) result.nodes->push_back((*args.nodes)[i].raw_json);
    }
    metrics_.CountFilter(v.passed.size(), v.failed.size(), v.unresolvable.size());
    std::map<std::string_view, size_t> kinds;  // One counter update per reason, not per node.
    for (std::string_view kind : v.kinds) ++kinds[kind];
    for (const auto& [kind, count] : kinds) metrics_.CountRejection(kind, count);
    result.failed_nodes = std::move(v.failed);
    result.failed_and_unresolvable_nodes = std::move(v.unresolvable);
    return {200, EncodeFilterResult(result)};
  });
}

Reply ExtenderHandlers::Prioritize(std::string& body) {
  return Timed("prioritize", "ExtenderArgs", [&]() -> Reply {
    auto decoder = decoders_.Take();  // Held while the reply is built: args.node_names views its buffer.
    ExtenderArgs args = decoder->DecodeExtenderArgs(body);
    cache::DropUnsealedPlan(args.pod, options_.plan_seal.get());
    const std::vector<std::string_view> names = args.CandidateNames();
    auto neutral = [&] {
      std::vector<HostPriority> zeros(names.size());
      for (size_t i = 0; i < names.size(); ++i) zeros[i].host = names[i];
      return zeros;
    };
    if (!cache::IsInterested(args.pod, options_.managed_resources) || !state_.synced()) {
      return {200, EncodeHostPriorityList(neutral())};
    }
    engine::PodRequest request;
    try {
      request = RequestOf(args.pod);
    } catch (const cache::DecodeError& e) {
      // kube-scheduler ignores prioritize errors whatever we answer; neutral scores say the same.
      spdlog::warn(logging::JsonFields("prioritize: unusable pod", "error", PodError(args.pod, e)));
      return {200, EncodeHostPriorityList(neutral())};
    }
    std::vector<HostPriority> scores = state_.Read([&](const cache::StateView& view) {
      auto policy = policies_.Take(PolicyEpoch(view));
      return PrioritizeNodes(view, args.pod, request, names, *policy);
    });
    return {200, EncodeHostPriorityList(scores, args.node_names && args.names_plain)};
  });
}

Reply ExtenderHandlers::Preempt(std::string& body) {
  return Timed("preempt", "ExtenderPreemptionArgs", [&]() -> Reply {
    auto decoder = decoders_.Take();  // Held while the reply is built: the args view its buffer.
    ExtenderPreemptionArgs args = decoder->DecodePreemptionArgs(body);
    cache::DropUnsealedPlan(args.pod, options_.plan_seal.get());
    // The decoded map is moved, not copied: at 500 candidate nodes a copy costs as much as deciding.
    NodeVictimsMap candidates =
        args.node_to_meta_victims ? std::move(*args.node_to_meta_victims) : args.CandidateVictims();
    if (!cache::IsInterested(args.pod, options_.managed_resources) || !state_.synced()) {
      ExtenderPreemptionResult result;
      result.node_to_meta_victims = std::move(candidates);
      return {200, EncodePreemptionResult(result)};
    }
    engine::PodRequest request;
    try {
      request = RequestOf(args.pod);
    } catch (const cache::DecodeError& e) {
      // No Error field in ExtenderPreemptionResult: an empty map tells the scheduler not to preempt.
      spdlog::warn(logging::JsonFields("preempt: unusable pod", "error", PodError(args.pod, e)));
      return {200, EncodePreemptionResult({})};
    }
    // Encoded under the read lock: the verdicts hold views of gang mates' UIDs in the state.
    return state_.Read([&](const cache::StateView& view) -> Reply {
      PreemptVerdicts v = SelectVictims(view, args.pod, request, candidates);
      metrics_.CountPreempt(v.result.node_to_meta_victims.size(), v.dropped.size());
      grants_.Record(args.pod.uid, v.result.node_to_meta_victims);
      return {200, EncodePreemptionResult(v.result)};
    });
  });
}

}  // namespace gangplank::extender
