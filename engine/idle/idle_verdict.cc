#include "engine/idle/idle_verdict.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gangplank::engine {
namespace {

struct Poll {
  double time = 0;
  double percent = 0;
};

// "5" for 5, "0.4" for 0.43: thresholds are usually whole, measurements rarely.
std::string Number(double v) {
  char buffer[64];
  const bool whole = std::abs(v - std::round(v)) < 1e-9;
  std::snprintf(buffer, sizeof(buffer), whole ? "%.0f" : "%.1f", v);
  return buffer;
}

std::string Seconds(double v) { return Number(std::round(v)) + " s"; }

// The polls that have data, inside the gang's life.
std::vector<Poll> WithData(const std::vector<UtilizationSample>& samples, double start, double now) {
  std::vector<Poll> polls;
  for (const UtilizationSample& s : samples) {
    if (s.time < start || s.time > now || !s.percent || !std::isfinite(*s.percent)) continue;
    polls.push_back({s.time, *s.percent});
  }
  return polls;
}

std::optional<double> MeanSince(const std::vector<Poll>& polls, double since) {
  double sum = 0;
  int n = 0;
  for (const Poll& p : polls) {
    if (p.time < since) continue;
    sum += p.percent;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

// Index of the first poll of the run below the threshold that reaches the last poll, or polls.size()
// when the last poll is not below it. A gap longer than max_gap ends the run as a busy poll does.
std::size_t RunStart(const std::vector<Poll>& polls, double threshold, double max_gap) {
  std::size_t i = polls.size();
  while (i > 0 && polls[i - 1].percent < threshold) {
    if (i < polls.size() && polls[i].time - polls[i - 1].time > max_gap) break;
    --i;
  }
  return i;
}

// Why a run that reaches now is shorter than the idle span: what came before it.
std::string ShortRun(const std::vector<Poll>& polls, std::size_t run, double now, const IdlePolicy& policy,
                     double max_gap) {
  const std::string below = "below " + Number(policy.threshold_percent) + "% only for the last " +
                            Seconds(now - polls[run].time) + " of the " + Seconds(policy.idle_seconds) + " needed";
  if (run == 0) return "utilization data " + below;
  const Poll& before = polls[run - 1];
  if (before.percent >= policy.threshold_percent) return "GPUs " + below;
  return "no utilization data for " + Seconds(polls[run].time - before.time) + " until " +
         Seconds(now - polls[run].time) + " ago (gaps up to " + Seconds(max_gap) + " count as data); GPUs " + below;
}

// The reason when the gang is not idle, or empty when it is.
std::string NotIdle(const std::vector<Poll>& polls, std::size_t run, double start, double now,
                    const IdlePolicy& policy, bool opted_out, double max_gap) {
  if (policy.action == IdlePolicy::kOff) return "the idle policy is off";
  if (opted_out) return "opted out of the idle policy";
  if (now - start < policy.min_age_seconds) {
    return "younger than " + Seconds(policy.min_age_seconds) + " (running " + Seconds(now - start) + ")";
  }
  if (polls.empty()) return "no utilization data since it started " + Seconds(now - start) + " ago";
  const double silent = now - polls.back().time;
  if (silent > max_gap) return "no utilization data since " + Seconds(silent) + " ago";
  if (run == polls.size()) {
    return "GPUs at " + Number(polls.back().percent) + "% in the last poll, not below " +
           Number(policy.threshold_percent) + "%";
  }
  if (polls[run].time > now - policy.idle_seconds) return ShortRun(polls, run, now, policy, max_gap);
  return "";
}

}  // namespace

IdleVerdict JudgeIdle(const std::vector<UtilizationSample>& samples, double start, double now,
                      const IdlePolicy& policy, bool opted_out, double max_gap_seconds) {
  if (!(max_gap_seconds > 0)) throw std::invalid_argument("idle verdict: max_gap_seconds must be positive");
  const std::vector<Poll> polls = WithData(samples, start, now);
  const bool recent = !polls.empty() && now - polls.back().time <= max_gap_seconds;
  const std::size_t run = recent ? RunStart(polls, policy.threshold_percent, max_gap_seconds) : polls.size();
  IdleVerdict verdict;
  if (run < polls.size()) verdict.idle_since = polls[run].time;
  verdict.mean_percent = MeanSince(polls, now - policy.idle_seconds);
  verdict.reason = NotIdle(polls, run, start, now, policy, opted_out, max_gap_seconds);
  if (verdict.reason.empty() && !verdict.mean_percent) {  // Only when max_gap exceeds the idle span.
    verdict.reason = "no utilization data in the last " + Seconds(policy.idle_seconds);
  }
  verdict.idle = verdict.reason.empty();
  if (verdict.idle) {
    verdict.reason = "GPUs at " + Number(*verdict.mean_percent) + "% on average for " + Seconds(policy.idle_seconds) +
                     ", below " + Number(policy.threshold_percent) + "%";
  }
  return verdict;
}

}  // namespace gangplank::engine
