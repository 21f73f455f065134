#include "engine/fairshare/usage_ledger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gangplank::engine {
namespace {

bool NonNegativeFinite(double v) { return v >= 0 && std::isfinite(v); }

}  // namespace

UsageLedger::UsageLedger(UsageDecayConfig config) : config_(config) {
  if (!NonNegativeFinite(config_.half_life_seconds) || !NonNegativeFinite(config_.weight)) {
    throw std::invalid_argument("usage ledger: half-life and weight must be finite and not negative");
  }
  if (!(config_.window_seconds > 0) || !std::isfinite(config_.window_seconds) || config_.buckets < 1) {
    throw std::invalid_argument("usage ledger: the window must be positive and finite, with at least one bucket");
  }
  width_ = config_.bucket_seconds();
  full_weight_.assign(config_.buckets, 1.0);
  for (int j = 1; j < config_.buckets; ++j) {
    if (config_.enabled()) full_weight_[j] = std::exp2(-(j - 0.5) * width_ / config_.half_life_seconds);
    full_weight_sum_ += full_weight_[j];
  }
}

std::int64_t UsageLedger::BucketOf(double t) const { return static_cast<std::int64_t>(std::floor(t / width_)); }

// Weights factor into two powers per query (how far `now` is into its bucket) times a table, so a query
// costs no exponential per bucket.
UsageLedger::Decay UsageLedger::DecayAt(double now) const {
  const std::int64_t cur = BucketOf(now);
  const double offset = std::clamp(now - static_cast<double>(cur) * width_, 0.0, width_);
  if (!config_.enabled()) return Decay{cur, offset, 1, 1};
  return Decay{cur, offset, std::exp2(-offset / config_.half_life_seconds),
               std::exp2(-offset / (2 * config_.half_life_seconds))};
}

double UsageLedger::Weight(std::int64_t k, const Decay& d) const {
  return k == d.cur ? d.current : d.scale * full_weight_[d.cur - k];
}

double UsageLedger::Denominator(const Decay& d) const {
  return d.offset * d.current + width_ * d.scale * full_weight_sum_;
}

void UsageLedger::Record(const std::string& queue, double gpus, double from, double to) {
  if (!NonNegativeFinite(gpus) || !std::isfinite(from) || !std::isfinite(to)) {
    throw std::invalid_argument("usage ledger: GPUs must be finite and not negative, times finite");
  }
  if (!(to > from) || gpus == 0) return;
  std::map<std::int64_t, double>& buckets = usage_[queue];
  for (std::int64_t k = BucketOf(from); k <= BucketOf(to); ++k) {
    const double start = static_cast<double>(k) * width_;
    const double overlap = std::min(to, start + width_) - std::max(from, start);
    if (overlap > 0) buckets[k] += gpus * overlap;
  }
}

double UsageLedger::DecayedGpus(const std::string& queue, double now) const {
  auto it = usage_.find(queue);
  if (it == usage_.end()) return 0;
  const Decay d = DecayAt(now);
  const double denominator = Denominator(d);
  if (!(denominator > 0)) return 0;
  double sum = 0;
  for (auto b = it->second.lower_bound(d.cur - config_.buckets + 1); b != it->second.end() && b->first <= d.cur;
       ++b) {
    sum += b->second * Weight(b->first, d);
  }
  return sum / denominator;
}

double UsageLedger::PastUsage(const std::string& queue, double now) const {
  return config_.enabled() ? config_.weight * DecayedGpus(queue, now) : 0;
}

double UsageLedger::GpuHours(const std::string& queue, double now) const {
  auto it = usage_.find(queue);
  if (it == usage_.end()) return 0;
  const std::int64_t cur = BucketOf(now);
  double sum = 0;
  for (auto b = it->second.lower_bound(cur - config_.buckets + 1); b != it->second.end() && b->first <= cur; ++b) {
    sum += b->second;
  }
  return sum / 3600;
}

void UsageLedger::Prune(double now) {
  const std::int64_t oldest = BucketOf(now) - config_.buckets + 1;
  for (auto it = usage_.begin(); it != usage_.end();) {
    it->second.erase(it->second.begin(), it->second.lower_bound(oldest));
    it = it->second.empty() ? usage_.erase(it) : std::next(it);
  }
}

std::vector<UsageBucket> UsageLedger::Buckets() const {
  std::vector<UsageBucket> out;
  for (const auto& [queue, buckets] : usage_) {
    for (const auto& [k, gpu_seconds] : buckets) out.push_back({queue, static_cast<double>(k) * width_, gpu_seconds});
  }
  return out;
}

// A bucket is found again from its start's midpoint, so a start written as text and read back lands in the
// same bucket even when rounding moved it slightly.
void UsageLedger::Restore(const std::vector<UsageBucket>& buckets) {
  for (const UsageBucket& b : buckets) {
    if (!NonNegativeFinite(b.gpu_seconds) || !std::isfinite(b.start)) {
      throw std::invalid_argument("usage ledger: a restored bucket needs a finite start and usage");
    }
    if (b.gpu_seconds > 0) usage_[b.queue][BucketOf(b.start + width_ / 2)] += b.gpu_seconds;
  }
}

}  // namespace gangplank::engine
