// One number per pod out of an instant vector whose series carry the pod's namespace and name as labels
// (dcgm-exporter's per-GPU series, for instance), for the operator to look utilization up by pod.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "promql/samples.h"

namespace gangplank::promql {

// (namespace, name)
using PodKey = std::pair<std::string, std::string>;

// Which labels name the pod. For each, the first label present with a non-empty value wins. The
// exported_* names come first: Prometheus renames a target's own label to exported_<name> when the
// scrape adds one of the same name (honor_labels: false with Kubernetes service discovery), and then the
// plain label names the exporter's pod, not the workload's.
struct PodLabelNames {
  std::vector<std::string> namespace_labels = {"exported_namespace", "namespace"};
  std::vector<std::string> pod_labels = {"exported_pod", "pod"};
};

// How the samples of one pod (one per GPU it holds) become its value.
enum class Combine { kMean, kSum, kMax };

// The value of each pod named by a sample. Samples naming no pod (idle GPUs carry pod="") are left out,
// and so are NaN and infinite values: they say nothing measurable about a pod.
std::map<PodKey, double> ByPod(const InstantVector& vector, const PodLabelNames& names = {},
                               Combine combine = Combine::kMean);

}  // namespace gangplank::promql
