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
  const bool fresh = snapshot != nullptr && snapshot->at > usage.read_at;
  if (usage.counted_at <= 0 || fresh || now - usage.counted_at >= kUsageCountSeconds) {
    if (usage.counted_at > 0 && now > usage.counted_at) CountGangs(model, snapshot, usage.counted_at, now);
    usage.counted_at = now;
    if (snapshot != nullptr) usage.read_at = snapshot->at;
    usage.ledger.Prune(now);
  }
  for (engine::AdmissionQueue& q : model.book.input().queues) q.past_usage = usage.ledger.PastUsage(q.name, now);
}

void UsageAccounting::CountGangs(PoolModel& model, const PodUtilizationSnapshot* snapshot, double from, double now) {
  const bool measured = snapshot != nullptr && snapshot->ok;
  for (const engine::RunningGang& running : model.book.input().running) {
    const double gpus = running.Gpus();
    if (gpus <= 0) continue;
    model.usage.ledger.Record(running.queue, gpus, from, now);
    if (metrics_ == nullptr) continue;
    const double seconds = gpus * (now - from);
    const std::string namespace_ = running.name.substr(0, running.name.find('/'));  // Gang keys start with it.
    // The gang's members only when there is a read to look them up in.
    const std::shared_ptr<const Gang> gang = measured ? tracker_.Share(running.name) : nullptr;
    const double percent = gang ? GangUtilization(*gang, snapshot) : -1;
    if (percent >= 0) {
      metrics_->Held(model.config().name, running.queue, namespace_, seconds, seconds * percent / 100);
    } else {
      metrics_->HeldUnmeasured(model.config().name, running.queue, namespace_, seconds);
    }
  }
}

}  // namespace gangplank::op
