#include "operator/utilization/usage_accounting.h"

#include <map>
#include <tuple>

namespace gangplank::op {

double GangUtilization(const Gang& gang, const PodUtilizationSnapshot* snapshot) {
  if (snapshot == nullptr || !snapshot->ok) return -1;
  double sum = 0;
  int members = 0;
  for (const Member& m : gang.members) {
    if (!m.bound() || m.deleting()) continue;
    const double percent = snapshot->Of(m.pod.namespace_, m.pod.name);
    if (percent < 0) return -1;  // A member without data: the gang's figure would be a guess.
    sum += percent;
    ++members;
  }
  return members == 0 ? -1 : sum / members;
}

void UsageAccounting::Count(PoolModel& model, const PodUtilizationSnapshot* snapshot, double now) {
  UsageBook& usage = model.usage;
  const double from = usage.counted_at > 0 ? usage.counted_at : now;
  usage.counted_at = now;
  engine::AdmissionInput& input = model.book.input();
  if (now > from) {
    for (const engine::RunningGang& running : input.running) {
      const std::optional<Gang> gang = tracker_.Get(running.name);
      const double gpus = running.Gpus();
      if (!gang || gpus <= 0) continue;
      usage.ledger.Record(running.queue, gpus, from, now);
      if (metrics_ == nullptr) continue;
      const double seconds = gpus * (now - from);
      const double percent = GangUtilization(*gang, snapshot);
      if (percent >= 0) {
        metrics_->Held(model.config().name, running.queue, gang->namespace_, seconds, seconds * percent / 100);
      } else {
        metrics_->HeldUnmeasured(model.config().name, running.queue, gang->namespace_, seconds);
      }
    }
  }
  usage.ledger.Prune(now);
  for (engine::AdmissionQueue& q : input.queues) q.past_usage = usage.ledger.PastUsage(q.name, now);
}

}  // namespace gangplank::op
