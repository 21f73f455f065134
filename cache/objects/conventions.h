// The labels, annotations and resource names gangplank reads from pods and nodes (see
// extender/README.md). One place, so the extender, operator and tests agree on the spelling.
#pragma once

#include <string_view>

namespace gangplank::cache {

// Pod label: the gang a pod belongs to (unique within the namespace).
inline constexpr std::string_view kGangLabel = "gangplank.io/gang";
// Pod annotation: the gang's minimum member count.
inline constexpr std::string_view kGangSizeAnnotation = "gangplank.io/gang-size";
// Pod label: the queue the pod is charged to.
inline constexpr std::string_view kQueueLabel = "gangplank.io/queue";
// Pod annotation written by the operator's admission plan: the node this pod must land on.
inline constexpr std::string_view kPlannedNodeAnnotation = "gangplank.io/planned-node";
// Pod annotation: allowed GPU models, "|"-separated ("A100|H100"); absent means any.
inline constexpr std::string_view kGpuModelsAnnotation = "gangplank.io/gpu-models";

// Whole GPUs (the NVIDIA device plugin's resource).
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
// A share of one GPU in milli-GPU (1000 = one whole GPU); asked for by GPU-sharing pods.
inline constexpr std::string_view kGpuMilliResource = "gangplank.io/gpu-milli";
// Node label (GPU feature discovery): the GPU model of the node.
inline constexpr std::string_view kGpuProductLabel = "nvidia.com/gpu.product";

}  // namespace gangplank::cache
