#include "tools/scheduler-driver/driver_metrics.h"

#include <prometheus/text_serializer.h>

namespace gangplank::scheduler_driver {
namespace {

constexpr std::string_view kResults[] = {"scheduled", "unschedulable", "error"};
constexpr std::string_view kVerbs[] = {"filter", "prioritize", "bind"};

template <std::size_t N>
std::uint64_t Sum(prometheus::Family<prometheus::Counter>& family, const std::string& label,
                  const std::string_view (&values)[N]) {
  std::uint64_t total = 0;
  for (std::string_view v : values) total += static_cast<std::uint64_t>(family.Add({{label, std::string(v)}}).Value());
  return total;
}

}  // namespace

DriverMetrics::DriverMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      attempts_(prometheus::BuildCounter()
                    .Name("gangplank_scheduler_driver_schedule_attempts_total")
                    .Help("Scheduling attempts by result (scheduled, unschedulable, error)")
                    .Register(*registry_)),
      extender_errors_(prometheus::BuildCounter()
                           .Name("gangplank_scheduler_driver_extender_errors_total")
                           .Help("Extender calls that failed (transport, non-200, undecodable reply, Error set), by verb")
                           .Register(*registry_)),
      bound_(prometheus::BuildCounter()
                 .Name("gangplank_scheduler_driver_pods_bound_total")
                 .Help("Pods bound by this driver")
                 .Register(*registry_)
                 .Add({})),
      conflicts_(prometheus::BuildCounter()
                     .Name("gangplank_scheduler_driver_binding_conflicts_total")
                     .Help("Bindings answered 409: the pod was already assigned to a node")
                     .Register(*registry_)
                     .Add({})),
      filter_failures_(prometheus::BuildCounter()
                           .Name("gangplank_scheduler_driver_filter_failures_total")
                           .Help("Attempts in which no node passed the in-tree filters and the extender's filter")
                           .Register(*registry_)
                           .Add({})),
      waiting_(prometheus::BuildGauge()
                   .Name("gangplank_scheduler_driver_pending_pods")
                   .Help("Pods waiting in the scheduling queue (active or backing off)")
                   .Register(*registry_)
                   .Add({})),
      assumed_(prometheus::BuildGauge()
                   .Name("gangplank_scheduler_driver_assumed_pods")
                   .Help("Pods bound by this driver that the pod informer does not show bound yet")
                   .Register(*registry_)
                   .Add({})) {
  for (std::string_view r : kResults) attempts_.Add({{"result", std::string(r)}});
  for (std::string_view v : kVerbs) extender_errors_.Add({{"verb", std::string(v)}});
}

void DriverMetrics::CountAttempt(std::string_view result) { attempts_.Add({{"result", std::string(result)}}).Increment(); }
void DriverMetrics::CountBound() { bound_.Increment(); }
void DriverMetrics::CountBindingConflict() { conflicts_.Increment(); }
void DriverMetrics::CountFilterFailure() { filter_failures_.Increment(); }
void DriverMetrics::CountExtenderError(std::string_view verb) {
  extender_errors_.Add({{"verb", std::string(verb)}}).Increment();
}
void DriverMetrics::SetQueue(std::size_t waiting, std::size_t assumed) {
  waiting_.Set(static_cast<double>(waiting));
  assumed_.Set(static_cast<double>(assumed));
}

DriverCounters DriverMetrics::Counters() const {
  DriverCounters c;
  c.bound = static_cast<std::uint64_t>(bound_.Value());
  c.binding_conflicts = static_cast<std::uint64_t>(conflicts_.Value());
  c.filter_failures = static_cast<std::uint64_t>(filter_failures_.Value());
  c.extender_errors = Sum(extender_errors_, "verb", kVerbs);
  c.attempts = Sum(attempts_, "result", kResults);
  return c;
}

std::string DriverMetrics::Scrape() const { return prometheus::TextSerializer().Serialize(registry_->Collect()); }

}  // namespace gangplank::scheduler_driver
