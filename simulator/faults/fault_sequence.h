// The faults of a failure replay, drawn once from a seed and replayed identically under every policy: when each node
// fails, how (a GPU, the whole host, an unplanned maintenance, the job's software), which of its GPUs it hits and when
// the node is back in service. Each node fails as a Poisson process of a published rate while it is in service; the
// kind follows a published mix (simulator/faults/README.md cites both).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/resources.h"

namespace gangplank::simulator {

enum class FaultKind {
  kGpu,          // A GPU fails (Xid, HBM, SRAM, ...): the process on it dies; the node is repaired.
  kHost,         // The host or its network goes (NotReady): every pod on it dies; the node is repaired.
  kMaintenance,  // The host needs unplanned maintenance: it still runs, but must be drained; then repaired.
  kSoftware,     // The job's software fails (a bug, an NCCL watchdog timeout): its process there dies; no repair.
};

// "gpu", "host", "maintenance", "software".
std::string_view FaultKindName(FaultKind kind);

// The node is out of service after a fault of this kind (all but software).
bool TakesNodeOut(FaultKind kind);

// Relative weights of the kinds.
struct FaultMix {
  double gpu = 0, host = 0, maintenance = 0, software = 0;
};

// Llama 3's 419 unexpected interruptions of a 54-day run on 2,048 hosts of 8 H100s, by root cause: GPU rows 268, host
// and network rows 56, unplanned host maintenance 32, software and unknown 63.
FaultMix Llama3FaultMix();
// 419 / (2,048 hosts x 54 days): about 3.8 faults per 1,000 node-days.
double Llama3FaultsPerNodeDay();

struct InjectedFault {
  double at = 0;
  engine::NodeId node = 0;
  FaultKind kind = FaultKind::kGpu;
  int gpu = 0;             // The GPU it hits (kGpu, kSoftware: the job holding it is hit).
  double repaired_at = 0;  // Back in service; `at` for kSoftware.
};

struct FaultModel {
  int nodes = 0;
  int gpus_per_node = 8;
  double faults_per_node_day = 0;
  FaultMix mix;
  double repair_seconds = 0;
  double horizon = 0;  // Faults happen in [0, horizon).
  std::uint64_t seed = 1;
};

// Every fault of every node, ordered by time (then node). A node out of service has no further fault until repaired.
std::vector<InjectedFault> DrawFaults(const FaultModel& model);

}  // namespace gangplank::simulator
