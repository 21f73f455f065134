#include "extender/service/extender_metrics.h"

#include <prometheus/text_serializer.h>

#include "cache/state/state_view.h"

namespace gangplank::extender {
namespace {

// 50 µs .. 1 s: the extender's budget is a millisecond, the scheduler's timeout seconds.
prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};
}

constexpr std::string_view kVerbs[] = {"filter", "prioritize", "preempt", "bind", "other"};
constexpr std::string_view kRejectionKinds[] = {
    "planned_elsewhere", "unknown_node", "queue_limit", "cordoned", "taint",        "node_selector", "gpu_model",
    "gpu_total",         "gpu_free",     "gpu_reserved", "gpu_share", "cpu",        "memory",        "other"};

}  // namespace

ExtenderMetrics::ExtenderMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      latency_(prometheus::BuildHistogram()
                   .Name("gangplank_extender_request_duration_seconds")
                   .Help("Time to answer one extender call, from decoded request to encoded reply, by verb")
                   .Register(*registry_)),
      requests_(prometheus::BuildCounter()
                    .Name("gangplank_extender_requests_total")
                    .Help("Extender calls by verb and HTTP status")
                    .Register(*registry_)),
      filter_nodes_(prometheus::BuildCounter()
                        .Name("gangplank_extender_filter_nodes_total")
                        .Help("Nodes judged by filter calls, by result (passed, failed, unresolvable)")
                        .Register(*registry_)),
      rejections_(prometheus::BuildCounter()
                      .Name("gangplank_extender_rejections_total")
                      .Help("Nodes rejected by filter calls, by reason")
                      .Register(*registry_)),
      preempt_nodes_(prometheus::BuildCounter()
                         .Name("gangplank_extender_preempt_nodes_total")
                         .Help("Candidate nodes of preempt calls, by result (kept, dropped)")
                         .Register(*registry_)),
      assume_expired_(prometheus::BuildCounter()
                          .Name("gangplank_extender_assumed_bindings_expired_total")
                          .Help("Bindings assumed by the bind verb that the pod informer never confirmed within "
                                "--assumed-pod-ttl-seconds, and were undone")
                          .Register(*registry_)
                          .Add({})),
      cache_(prometheus::BuildGauge()
                 .Name("gangplank_extender_cache_objects")
                 .Help("Objects in the extender's cluster-state cache, by kind")
                 .Register(*registry_)) {
  for (std::string_view verb : kVerbs) {
    latency_by_verb_.emplace(std::string(verb), &latency_.Add({{"verb", std::string(verb)}}, LatencyBuckets()));
  }
  for (std::string_view verb : kVerbs) {
    for (int status : {200, 400, 405, 413, 500}) {
      requests_by_verb_status_.emplace(std::pair{std::string(verb), status}, &Requests(verb, status));
    }
  }
  for (std::string_view kind : kRejectionKinds) {
    rejection_by_kind_.emplace(std::string(kind), &rejections_.Add({{"reason", std::string(kind)}}));
  }
  filter_passed_ = &filter_nodes_.Add({{"result", "passed"}});
  filter_failed_ = &filter_nodes_.Add({{"result", "failed"}});
  filter_unresolvable_ = &filter_nodes_.Add({{"result", "unresolvable"}});
  preempt_kept_ = &preempt_nodes_.Add({{"result", "kept"}});
  preempt_dropped_ = &preempt_nodes_.Add({{"result", "dropped"}});
}

prometheus::Counter& ExtenderMetrics::Requests(std::string_view verb, int status) {
  return requests_.Add({{"verb", std::string(verb)}, {"code", std::to_string(status)}});
}

void ExtenderMetrics::ObserveRequest(std::string_view verb, int status, double seconds) {
  auto it = latency_by_verb_.find(verb);
  if (it == latency_by_verb_.end()) it = latency_by_verb_.find(std::string_view("other"));
  it->second->Observe(seconds);
  auto counter = requests_by_verb_status_.find(std::pair{it->first, status});
  if (counter != requests_by_verb_status_.end()) counter->second->Increment();
  else Requests(it->first, status).Increment();
}

void ExtenderMetrics::CountFilter(size_t passed, size_t failed, size_t unresolvable) {
  filter_passed_->Increment(static_cast<double>(passed));
  filter_failed_->Increment(static_cast<double>(failed));
  filter_unresolvable_->Increment(static_cast<double>(unresolvable));
}

void ExtenderMetrics::CountRejection(std::string_view kind, size_t count) {
  auto it = rejection_by_kind_.find(kind);
  if (it == rejection_by_kind_.end()) it = rejection_by_kind_.find(std::string_view("other"));
  it->second->Increment(static_cast<double>(count));
}

void ExtenderMetrics::CountAssumeExpired(size_t count) { assume_expired_.Increment(static_cast<double>(count)); }

void ExtenderMetrics::CountPreempt(size_t kept, size_t dropped) {
  preempt_kept_->Increment(static_cast<double>(kept));
  preempt_dropped_->Increment(static_cast<double>(dropped));
}

std::string ExtenderMetrics::Scrape(const cache::StateView& view, bool synced) {
  cache_.Add({{"kind", "nodes"}}).Set(static_cast<double>(view.node_count()));
  cache_.Add({{"kind", "pods"}}).Set(static_cast<double>(view.pod_count()));
  cache_.Add({{"kind", "reservations"}}).Set(static_cast<double>(view.reservation_count()));
  cache_.Add({{"kind", "unaccounted_pods"}}).Set(static_cast<double>(view.unaccounted_count()));
  cache_.Add({{"kind", "assumed_pods"}}).Set(static_cast<double>(view.assumed_count()));
  cache_.Add({{"kind", "synced"}}).Set(synced ? 1 : 0);
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace gangplank::extender
