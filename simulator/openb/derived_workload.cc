#include "simulator/openb/derived_workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>

#include "engine/random.h"

namespace gangplank::simulator::openb {
namespace {

bool IsMultiGpu(const engine::PodRequest& p) { return p.gpu_count > 1; }

// Indices of pods satisfying `keep`, in a seeded random order.
template <typename Pred>
std::vector<size_t> ShuffledIndices(const std::vector<engine::PodRequest>& pods, Pred keep, engine::Rng& rng) {
  std::vector<size_t> out;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (keep(pods[i])) out.push_back(i);
  }
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng.Below(i)]);  // Fisher-Yates.
  return out;
}

size_t CountOf(const std::vector<engine::PodRequest>& pods, bool (*pred)(const engine::PodRequest&)) {
  return static_cast<size_t>(std::count_if(pods.begin(), pods.end(), pred));
}

// GPU count per model over the nodes that could hold `pod` on their own, in model-name order.
std::vector<std::pair<std::string, std::int64_t>> ModelMixFor(const engine::PodRequest& pod,
                                                              const std::vector<engine::NodeSpec>& nodes) {
  std::map<std::string, std::int64_t> mix;
  for (const engine::NodeSpec& n : nodes) {
    const bool holds = n.gpu_count >= pod.gpu_count && n.capacity.cpu_milli >= pod.host.cpu_milli &&
                       n.capacity.memory_mib >= pod.host.memory_mib;
    if (holds && n.gpu_count > 0) mix[n.gpu_model] += n.gpu_count;
  }
  return {mix.begin(), mix.end()};
}

std::string DrawModel(const std::vector<std::pair<std::string, std::int64_t>>& mix, engine::Rng& rng) {
  std::int64_t total = 0;
  for (const auto& [model, gpus] : mix) total += gpus;
  auto ticket = static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(total)));
  for (const auto& [model, gpus] : mix) {
    if (ticket < gpus) return model;
    ticket -= gpus;
  }
  return mix.back().first;
}

size_t TargetCount(double share, size_t gpu_pods) {
  return static_cast<size_t>(std::llround(share * static_cast<double>(gpu_pods)));
}

}  // namespace

DeriveSpec DeriveSpec::Parse(std::string_view text) {
  DeriveSpec spec;
  if (text.empty() || text == "none") return spec;
  const size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  if (kind == "model-constrained") {
    spec.kind = Kind::kModelConstrained;
  } else if (kind == "multi-gpu") {
    spec.kind = Kind::kMultiGpu;
  } else {
    throw std::invalid_argument("unknown workload shape '" + std::string(text) +
                                "' (expected model-constrained:SHARE or multi-gpu:SHARE)");
  }
  const std::string_view number = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), spec.share);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || spec.share < 0 ||
      spec.share > 1) {
    throw std::invalid_argument("workload shape '" + std::string(text) + "': the share must be a number in 0..1");
  }
  return spec;
}

std::string DeriveSpec::ToString() const {
  if (kind == Kind::kNone) return "none";
  char share_text[32];
  const auto [end, ec] = std::to_chars(share_text, share_text + sizeof share_text, share);
  return std::string(kind == Kind::kModelConstrained ? "model-constrained:" : "multi-gpu:") +
         std::string(share_text, ec == std::errc() ? end : share_text);
}

std::vector<engine::PodRequest> ConstrainModels(const std::vector<engine::PodRequest>& pods,
                                                const std::vector<engine::NodeSpec>& nodes, double share,
                                                std::uint64_t seed) {
  std::vector<engine::PodRequest> out = pods;
  const size_t target = TargetCount(share, CountOf(pods, [](const engine::PodRequest& p) { return p.WantsGpu(); }));
  size_t constrained =
      CountOf(pods, [](const engine::PodRequest& p) { return p.WantsGpu() && !p.gpu_models.empty(); });
  engine::Rng rng(seed);
  const auto free_choice = [](const engine::PodRequest& p) { return p.WantsGpu() && p.gpu_models.empty(); };
  for (size_t i : ShuffledIndices(pods, free_choice, rng)) {
    if (constrained >= target) break;
    const auto mix = ModelMixFor(out[i], nodes);
    if (mix.empty()) continue;  // No node can hold it: a model would not change what happens to it.
    out[i].gpu_models = {DrawModel(mix, rng)};
    ++constrained;
  }
  return out;
}

std::vector<engine::PodRequest> RaiseMultiGpuShare(const std::vector<engine::PodRequest>& pods, double share,
                                                   std::uint64_t seed) {
  std::vector<engine::PodRequest> out = pods;
  const size_t target = TargetCount(share, CountOf(pods, [](const engine::PodRequest& p) { return p.WantsGpu(); }));
  size_t multi = CountOf(pods, IsMultiGpu);
  if (multi >= target) return out;
  std::vector<size_t> donors;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (IsMultiGpu(pods[i])) donors.push_back(i);
  }
  if (donors.empty()) throw std::invalid_argument("multi-gpu shape: the pod list has no multi-GPU pod to resample");
  engine::Rng rng(seed);
  const auto one_gpu = [](const engine::PodRequest& p) { return p.gpu_count == 1 && p.gpu_milli > 0; };
  for (size_t i : ShuffledIndices(pods, one_gpu, rng)) {
    if (multi >= target) break;
    out[i] = pods[donors[rng.Below(donors.size())]];
    ++multi;
  }
  return out;
}

std::vector<engine::PodRequest> DeriveWorkload(const std::vector<engine::PodRequest>& pods,
                                               const std::vector<engine::NodeSpec>& nodes, const DeriveSpec& spec,
                                               std::uint64_t seed) {
  switch (spec.kind) {
    case DeriveSpec::Kind::kModelConstrained:
      return ConstrainModels(pods, nodes, spec.share, seed);
    case DeriveSpec::Kind::kMultiGpu:
      return RaiseMultiGpuShare(pods, spec.share, seed);
    case DeriveSpec::Kind::kNone:
      break;
  }
  return pods;
}

}  // namespace gangplank::simulator::openb
