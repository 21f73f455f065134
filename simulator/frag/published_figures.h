// The FGD paper's published figures (Weng et al., USENIX ATC '23: openb, seeds 42..51; data/README.md)
// and the trace they belong to. They are shown beside a replay only when it replays that trace as it is:
// the bundled openb node list and default pod list, no derived shape.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gangplank::simulator::frag {

struct PublishedResult {
  std::string policy;
  double unallocated_mean;
  double unallocated_sd;
  std::optional<double> allocated_at_130_median;
};

const std::vector<PublishedResult>& PublishedOpenbResults();
// The published result of `policy`, or null when the paper has none.
const PublishedResult* PublishedOpenbResult(const std::string& policy);

// The bundled trace the figures belong to (data/openb/).
std::string BundledOpenbNodeList();
std::string BundledOpenbPodList();
// Whether the files are the bundled node list and default pod list, however the paths name them.
bool IsBundledOpenbTrace(const std::string& nodes_path, const std::string& pods_path);

}  // namespace gangplank::simulator::frag
