#include "engine/admission/past_usage.h"

#include <cmath>
#include <stdexcept>

namespace gangplank::engine {

void CheckPastUsage(const std::vector<AdmissionQueue>& queues) {
  for (const AdmissionQueue& q : queues) {
    if (!(q.past_usage >= 0) || !std::isfinite(q.past_usage)) {
      throw std::invalid_argument("admission: queue " + q.name + " has a past usage that is negative or not finite");
    }
  }
}

std::vector<double> SubtreePastUsage(const QueueTree& tree, const std::vector<AdmissionQueue>& queues) {
  std::vector<double> own;
  own.reserve(queues.size());
  for (const AdmissionQueue& q : queues) own.push_back(q.past_usage);
  return tree.SubtreeTotals(std::move(own));
}

}  // namespace gangplank::engine
