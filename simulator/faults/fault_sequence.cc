#include "simulator/faults/fault_sequence.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "engine/random.h"

namespace gangplank::simulator {
namespace {

// Llama 3 paper, table of root causes (see README.md): counts of the 419 unexpected interruptions.
constexpr double kGpuRows = 148 + 72 + 19 + 17 + 6 + 6;  // Faulty GPU, HBM3, SRAM, GSP, SDC, thermal.
constexpr double kHostRows = 35 + 7 + 3 + 3 + 2 + 2 + 2 + 2;  // Switch/cable, NIC, SSD, PSU, chassis, IO, CPU, DRAM.
constexpr double kMaintenanceRows = 32;                       // Unplanned host maintenance.
constexpr double kSoftwareRows = 54 + 7 + 2;                  // Software bug, NCCL watchdog, dependency.
constexpr double kInterruptions = 419, kHosts = 16384 / 8, kDays = 54;

// A node's own stream: the run seed mixed with the node through one SplitMix64 step, so that seeds and nodes give
// unrelated sequences.
engine::Rng NodeStream(std::uint64_t seed, engine::NodeId node) {
  engine::Rng mixer(seed ^ (0xd1b54a32d192ed03ULL * (static_cast<std::uint64_t>(node) + 1)));
  return engine::Rng(mixer.Next());
}

FaultKind PickKind(engine::Rng& rng, const FaultMix& mix) {
  const double total = mix.gpu + mix.host + mix.maintenance + mix.software;
  double u = rng.Unit() * total;
  if ((u -= mix.gpu) < 0) return FaultKind::kGpu;
  if ((u -= mix.host) < 0) return FaultKind::kHost;
  if ((u -= mix.maintenance) < 0) return FaultKind::kMaintenance;
  return FaultKind::kSoftware;
}

void DrawNode(const FaultModel& model, engine::NodeId node, double rate, std::vector<InjectedFault>& out) {
  engine::Rng rng = NodeStream(model.seed, node);
  for (double in_service_since = 0;;) {
    const double at = in_service_since - std::log(1 - rng.Unit()) / rate;
    if (at >= model.horizon) return;
    InjectedFault f;
    f.at = at;
    f.node = node;
    f.kind = PickKind(rng, model.mix);
    f.gpu = static_cast<int>(rng.Below(static_cast<std::uint64_t>(std::max(1, model.gpus_per_node))));
    f.repaired_at = TakesNodeOut(f.kind) ? at + model.repair_seconds : at;
    out.push_back(f);
    in_service_since = f.repaired_at;
  }
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kGpu: return "gpu";
    case FaultKind::kHost: return "host";
    case FaultKind::kMaintenance: return "maintenance";
    case FaultKind::kSoftware: return "software";
  }
  return "unknown";
}

bool TakesNodeOut(FaultKind kind) { return kind != FaultKind::kSoftware; }

FaultMix Llama3FaultMix() { return {kGpuRows, kHostRows, kMaintenanceRows, kSoftwareRows}; }

double Llama3FaultsPerNodeDay() { return kInterruptions / (kHosts * kDays); }

std::vector<InjectedFault> DrawFaults(const FaultModel& model) {
  std::vector<InjectedFault> out;
  const double rate = model.faults_per_node_day / 86400;
  if (!(rate > 0)) return out;
  for (engine::NodeId node = 0; node < model.nodes; ++node) DrawNode(model, node, rate, out);
  std::sort(out.begin(), out.end(), [](const InjectedFault& a, const InjectedFault& b) {
    return std::tie(a.at, a.node) < std::tie(b.at, b.node);
  });
  return out;
}

}  // namespace gangplank::simulator
