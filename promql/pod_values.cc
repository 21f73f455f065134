// Per-pod values from labelled samples.
#include "promql/pod_values.h"

#include <algorithm>
#include <cmath>

namespace gangplank::promql {
namespace {

std::string FirstLabel(const Labels& labels, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    const auto it = labels.find(name);
    if (it != labels.end() && !it->second.empty()) return it->second;
  }
  return "";
}

struct Accumulated {
  double sum = 0;
  double max = -INFINITY;
  int count = 0;
};

double Finish(const Accumulated& a, Combine combine) {
  switch (combine) {
    case Combine::kSum: return a.sum;
    case Combine::kMax: return a.max;
    case Combine::kMean: break;
  }
  return a.sum / a.count;
}

}  // namespace

std::map<PodKey, double> ByPod(const InstantVector& vector, const PodLabelNames& names, Combine combine) {
  std::map<PodKey, Accumulated> pods;
  for (const auto& sample : vector) {
    PodKey key{FirstLabel(sample.labels, names.namespace_labels), FirstLabel(sample.labels, names.pod_labels)};
    if (key.first.empty() || key.second.empty() || !std::isfinite(sample.value)) continue;
    Accumulated& pod = pods[std::move(key)];
    pod.sum += sample.value;
    pod.max = std::max(pod.max, sample.value);
    ++pod.count;
  }
  std::map<PodKey, double> out;
  for (const auto& [key, accumulated] : pods) out.emplace(key, Finish(accumulated, combine));
  return out;
}

}  // namespace gangplank::promql
