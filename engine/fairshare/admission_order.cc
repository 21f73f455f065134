#include "engine/fairshare/admission_order.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

namespace gangplank::engine {

// Adding a past usage of 0 leaves `allocated` bit for bit, so pools without time-based fair share decide
// exactly as before.
double ShareRatio(double allocated, double fair_share, double past_usage) {
  if (!(fair_share > 0)) return std::numeric_limits<double>::infinity();
  return (allocated + past_usage) / fair_share;
}

double HeldAtRatio(double ratio, double fair_share, double past_usage) { return ratio * fair_share - past_usage; }

bool AdmitsBefore(const AdmissionCandidate& a, const AdmissionCandidate& b) {
  const double ra = ShareRatio(a.queue_allocated, a.queue_fair_share, a.queue_past_usage);
  const double rb = ShareRatio(b.queue_allocated, b.queue_fair_share, b.queue_past_usage);
  return std::make_tuple(ra, -a.priority, a.arrival, a.sequence) <
         std::make_tuple(rb, -b.priority, b.arrival, b.sequence);
}

std::vector<int> AdmissionOrder(const std::vector<AdmissionCandidate>& candidates) {
  std::vector<int> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return AdmitsBefore(candidates[a], candidates[b]); });
  return order;
}

}  // namespace gangplank::engine
