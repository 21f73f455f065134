#include "engine/idle/utilization_window.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace gangplank::engine {
namespace {

bool Earlier(const UtilizationSample& a, const UtilizationSample& b) { return a.time < b.time; }

void DropBefore(std::vector<UtilizationSample>& samples, double cutoff) {
  const auto keep = std::lower_bound(samples.begin(), samples.end(), UtilizationSample{cutoff, std::nullopt}, Earlier);
  samples.erase(samples.begin(), keep);
}

}  // namespace

UtilizationWindow::UtilizationWindow(double max_age_seconds) : max_age_(max_age_seconds) {
  if (!(max_age_seconds > 0)) throw std::invalid_argument("utilization window: max age must be positive");
}

void UtilizationWindow::Add(const std::string& gang, const UtilizationSample& sample) {
  std::vector<UtilizationSample>& samples = by_gang_[gang];
  samples.insert(std::upper_bound(samples.begin(), samples.end(), sample, Earlier), sample);
  DropBefore(samples, samples.back().time - max_age_);
}

const std::vector<UtilizationSample>& UtilizationWindow::Samples(const std::string& gang) const {
  static const std::vector<UtilizationSample> kNone;
  const auto it = by_gang_.find(gang);
  return it == by_gang_.end() ? kNone : it->second;
}

void UtilizationWindow::Prune(double now) {
  for (auto it = by_gang_.begin(); it != by_gang_.end();) {
    DropBefore(it->second, now - max_age_);
    it = it->second.empty() ? by_gang_.erase(it) : std::next(it);
  }
}

void UtilizationWindow::Forget(const std::string& gang) { by_gang_.erase(gang); }

}  // namespace gangplank::engine
