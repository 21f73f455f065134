#include "simulator/time_replay/weekly_jain.h"

#include <cmath>

namespace gangplank::simulator {
namespace {

// Sums of held GPUs and fair shares per queue over samples [begin, end).
double JainOfWindow(const std::vector<ReplaySample>& samples, size_t begin, size_t end) {
  const size_t queues = samples[begin].queue_held.size();
  std::vector<double> held(queues, 0), fair(queues, 0);
  for (size_t i = begin; i < end; ++i) {
    for (size_t q = 0; q < queues; ++q) {
      held[q] += samples[i].queue_held[q];
      fair[q] += samples[i].fair_share[q];
    }
  }
  std::vector<double> ratios;
  for (size_t q = 0; q < queues; ++q) {
    if (fair[q] > 0) ratios.push_back(held[q] / fair[q]);
  }
  return JainOfRatios(ratios);
}

}  // namespace

double JainOfRatios(const std::vector<double>& ratios) {
  if (ratios.empty()) return -1;
  double sum = 0, sum_sq = 0;
  for (double x : ratios) {
    sum += x;
    sum_sq += x * x;
  }
  if (sum_sq == 0) return 1;  // Nobody holds anything: equal, if equally bad.
  return sum * sum / (static_cast<double>(ratios.size()) * sum_sq);
}

double WindowedJain(const std::vector<ReplaySample>& samples, double window_seconds) {
  double total = 0;
  int windows = 0;
  for (size_t begin = 0; begin < samples.size();) {
    const double window = std::floor(samples[begin].time / window_seconds);
    size_t end = begin;
    while (end < samples.size() && std::floor(samples[end].time / window_seconds) == window) ++end;
    const double jain = JainOfWindow(samples, begin, end);
    if (jain >= 0) {
      total += jain;
      ++windows;
    }
    begin = end;
  }
  return windows > 0 ? total / windows : 1;
}

}  // namespace gangplank::simulator
