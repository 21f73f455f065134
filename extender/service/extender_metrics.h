// The extender's Prometheus metrics (prometheus-cpp core), served as text on /metrics by the service.
// Per verb: request latency histogram and requests by HTTP status; filter outcomes and rejection
// reasons; preemption outcomes; cache sizes (refreshed at each scrape).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace gangplank::cache {
class StateView;
}

namespace gangplank::extender {

class ExtenderMetrics {
 public:
  ExtenderMetrics();

  void ObserveRequest(std::string_view verb, int status, double seconds);
  void CountFilter(size_t passed, size_t failed, size_t unresolvable);
  void CountRejection(std::string_view kind, size_t count = 1);
  void CountPreempt(size_t kept, size_t dropped);
  // Assumed bindings undone because the informer never confirmed them (cache::AssumeExpiry).
  void CountAssumeExpired(size_t count);
  // Prometheus text exposition, with the cache gauges refreshed from `view`.
  std::string Scrape(const cache::StateView& view, bool synced);

 private:
  prometheus::Counter& Requests(std::string_view verb, int status);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Histogram>& latency_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Counter>& filter_nodes_;
  prometheus::Family<prometheus::Counter>& rejections_;
  prometheus::Family<prometheus::Counter>& preempt_nodes_;
  prometheus::Counter& assume_expired_;
  prometheus::Family<prometheus::Gauge>& cache_;
  std::map<std::string, prometheus::Histogram*, std::less<>> latency_by_verb_;
  // Counters for the statuses the service answers with, per verb, made once: Family::Add locks and
  // builds a label map on every call.
  std::map<std::pair<std::string, int>, prometheus::Counter*, std::less<>> requests_by_verb_status_;
  std::map<std::string, prometheus::Counter*, std::less<>> rejection_by_kind_;
  prometheus::Counter* filter_passed_;
  prometheus::Counter* filter_failed_;
  prometheus::Counter* filter_unresolvable_;
  prometheus::Counter* preempt_kept_;
  prometheus::Counter* preempt_dropped_;
};

}  // namespace gangplank::extender
