#include "simulator/frag/published_figures.h"

#include <filesystem>
#include <system_error>

namespace gangplank::simulator::frag {
namespace {

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;  // A missing file is no match, not an error.
}

}  // namespace

const std::vector<PublishedResult>& PublishedOpenbResults() {
  static const std::vector<PublishedResult> kPublished = {
      {"random", 13.70, 0.33, 87.38}, {"dotprod", 9.38, 0.19, std::nullopt},
      {"gpuclustering", 8.35, 0.61, std::nullopt}, {"gpupacking", 8.22, 0.53, std::nullopt},
      {"bestfit", 7.14, 0.14, 93.11}, {"fgd", 4.77, 0.11, 95.40},
  };
  return kPublished;
}

const PublishedResult* PublishedOpenbResult(const std::string& policy) {
  for (const PublishedResult& p : PublishedOpenbResults()) {
    if (p.policy == policy) return &p;
  }
  return nullptr;
}

std::string BundledOpenbNodeList() { return std::string(GANGPLANK_DATA_DIR) + "/openb/openb_node_list_gpu_node.csv"; }

std::string BundledOpenbPodList() { return std::string(GANGPLANK_DATA_DIR) + "/openb/openb_pod_list_default.csv"; }

bool IsBundledOpenbTrace(const std::string& nodes_path, const std::string& pods_path) {
  return SameFile(nodes_path, BundledOpenbNodeList()) && SameFile(pods_path, BundledOpenbPodList());
}

}  // namespace gangplank::simulator::frag
