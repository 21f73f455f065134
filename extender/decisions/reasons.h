// Why a node was rejected, in words a person understands, plus a short kind for metrics labels.
// The verdict itself always comes from the engine (Cluster::Eligible / HasCapacity); these functions
// only explain it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "engine/cluster.h"
#include "cache/state/state_view.h"

namespace gangplank::extender {

struct Rejection {
  std::string_view kind;  // Metrics label: cordoned, taint, node_selector, gpu_model, cpu, memory, ...
  std::string reason;
  bool resolvable = true;  // Whether evicting pods on the node could make room (FailedNodes).
};

// Why `request` does not fit on `node` although the engine says so. Never empty. The overloads that
// fill `out` reuse its reason's buffer: filter explains hundreds of nodes per call.
Rejection ExplainNoFit(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& request);
void ExplainNoFit(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& request, Rejection& out);
// The same for a node the request is eligible for (engine::FitCheck::Eligible): what capacity is
// short, read from the node's summary. Equals ExplainNoFit there.
void ExplainNoCapacity(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& request,
                       Rejection& out);

// Appends the pieces with at most one allocation: reasons are built for hundreds of nodes per call,
// into a buffer the caller reuses.
void AppendText(std::string& out, std::initializer_list<std::string_view> parts);

// "64", "0.5" (GPUs from milli-GPU); "4000m" style CPU; "512Mi" / "2Gi" memory.
std::string FormatGpus(std::int64_t milli);
std::string FormatCpu(std::int64_t milli);
std::string FormatMemory(std::int64_t mib);

}  // namespace gangplank::extender
