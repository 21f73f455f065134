// The GPU utilization samples an idle verdict is judged on, kept per gang for as long as a verdict can
// look back (the idle span and a margin) and no longer, so memory stays bounded however long gangs run.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gangplank::engine {

// One poll of a gang's GPUs: the mean utilization over its members, or nothing when the poll had no data
// (the metrics source down, the gang's series missing). A poll without data never counts as idle.
struct UtilizationSample {
  double time = 0;                // Seconds, the epoch of `now`.
  std::optional<double> percent;  // 0-100.
};

class UtilizationWindow {
 public:
  // Samples older than the newest time seen minus `max_age_seconds` are dropped: give it at least
  // IdlePolicy::idle_seconds plus the largest gap JudgeIdle accepts, so a verdict finds its first sample.
  explicit UtilizationWindow(double max_age_seconds);

  // Keeps the gang's samples in time order (a late sample is inserted where it belongs).
  void Add(const std::string& gang, const UtilizationSample& sample);
  // The gang's samples, oldest first; empty for a gang never seen.
  const std::vector<UtilizationSample>& Samples(const std::string& gang) const;
  // Drops samples older than now - max_age for every gang, and gangs left with none (gangs that ended).
  void Prune(double now);
  void Forget(const std::string& gang);
  std::size_t gangs() const { return by_gang_.size(); }

 private:
  double max_age_;
  std::unordered_map<std::string, std::vector<UtilizationSample>> by_gang_;
};

}  // namespace gangplank::engine
