#include "engine/admission/admission_decision.h"

namespace gangplank::engine {

std::string_view BlockCodeName(BlockCode code) {
  switch (code) {
    case BlockCode::kQueueAtLimit: return "QueueAtLimit";
    case BlockCode::kInsufficientGpus: return "InsufficientGPUs";
    case BlockCode::kTopology: return "TopologyUnsatisfiable";
    case BlockCode::kNoEligibleNodes: return "NoEligibleNodes";
    case BlockCode::kReserved: return "Reserved";
    case BlockCode::kAwaitingVictims: return "AwaitingVictims";
    case BlockCode::kBehindStarvingGang: return "BlockedBehindGang";
    case BlockCode::kNotReplanned: return "NotReplanned";
    case BlockCode::kInvalid: return "InvalidGang";
    case BlockCode::kTimedOut: return "TimedOut";
  }
  return "Unknown";
}

std::string_view EvictionKindName(EvictionKind kind) {
  switch (kind) {
    case EvictionKind::kReclaim: return "Reclaim";
    case EvictionKind::kPriority: return "PriorityPreemption";
    case EvictionKind::kStartTimeout: return "StartTimeout";
    case EvictionKind::kBackfillOverrun: return "BackfillOverrun";
    case EvictionKind::kConsolidation: return "Consolidation";
  }
  return "Unknown";
}

}  // namespace gangplank::engine
