#include "engine/admission/unfit_reason.h"

#include <algorithm>
#include <functional>

#include "engine/admission/decision_text.h"
#include "engine/admission/gang_shape.h"
#include "engine/level_display_name.h"

namespace gangplank::engine {
namespace {

bool Uniform(const GangRequest& gang) {
  return std::all_of(gang.members.begin(), gang.members.end(),
                     [&](const PodRequest& m) { return SameConstraints(m, gang.members.front()); });
}

// Whole GPUs one domain must have free for the gang: its smallest members that make up the minimum.
int WholeGpusNeeded(const GangRequest& gang) {
  std::vector<int> sizes;
  for (const PodRequest& m : gang.members) sizes.push_back(m.WantsGpu() && !m.IsSharing() ? m.gpu_count : 0);
  std::sort(sizes.begin(), sizes.end());
  int need = 0;
  for (int i = 0; i < gang.MinMembers() && i < static_cast<int>(sizes.size()); ++i) need += sizes[i];
  return need;
}

}  // namespace

const UnfitExplainer::Usable& UnfitExplainer::UsableFor(const GangRequest& gang) {
  const bool uniform = Uniform(gang);
  if (uniform) {
    for (const Usable& u : usable_) {
      if (u.shared && SameConstraints(*u.like, gang.members.front())) return u;
    }
  }
  Usable u;
  u.like = &gang.members.front();
  u.shared = uniform;  // A gang of mixed members gets an entry of its own.
  std::vector<char> mask(static_cast<size_t>(cluster_.size()), 0);
  for (NodeId n = 0; n < cluster_.size(); ++n) {
    mask[n] = std::any_of(gang.members.begin(), gang.members.end(),
                          [&](const PodRequest& m) { return cluster_.Eligible(n, m); });
    u.nodes += mask[n];
  }
  u.largest = LargestPlaceableGangs(cluster_, mask);
  usable_.push_back(std::move(u));
  return usable_.back();
}

double UnfitExplainer::FreeGpus() {
  if (free_gpus_ < 0) {
    std::int64_t milli = 0;
    for (NodeId n = 0; n < cluster_.size(); ++n) {
      if (!cluster_.spec(n).unschedulable) milli += cluster_.state(n).TotalFreeGpuMilli();
    }
    free_gpus_ = static_cast<double>(milli) / kMilliPerGpu;
  }
  return free_gpus_;
}

Blocked UnfitExplainer::Explain(const GangRequest& gang, double gpus) {
  Blocked b;
  if (gang.members.empty()) return b;
  const Usable& usable = UsableFor(gang);
  if (usable.nodes == 0) {
    b.code = BlockCode::kNoEligibleNodes;
    b.message = "no node is eligible: GPU model, node selector, taints or cordon";
    return b;
  }
  if (gpus > FreeGpus() + 1e-9) {
    b.code = BlockCode::kInsufficientGpus;
    b.message = "needs " + Amount(gpus) + " GPUs; the pool has " + Amount(FreeGpus()) + " free";
    return b;
  }
  b.code = BlockCode::kTopology;
  const int need = WholeGpusNeeded(gang);
  const int level = gang.required_level.empty() ? -1 : cluster_.topology().LevelIndex(gang.required_level);
  const int free = usable.largest.at(static_cast<size_t>(level + 1)).free_gpus;
  if (need == 0) {
    b.message = "does not fit the nodes it may use (GPU share, CPU or memory)";
    return b;
  }
  b.message = level < 0 ? "needs " + std::to_string(need) + " GPUs on the nodes it may use; they have " +
                              std::to_string(free) + " free"
                        : "needs " + std::to_string(need) + " GPUs in one " + LevelDisplayName(gang.required_level) +
                              "; largest free is " + std::to_string(free);
  if (free >= need) b.message += ", but its pods do not fit there (GPUs per node, CPU or memory)";
  return b;
}

}  // namespace gangplank::engine
