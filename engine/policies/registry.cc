#include "engine/policies/registry.h"

#include <stdexcept>

#include "engine/policies/best_fit/best_fit.h"
#include "engine/policies/dot_prod/dot_prod.h"
#include "engine/policies/fgd/fgd.h"
#include "engine/policies/frag_pack/frag_pack.h"
#include "engine/policies/gpu_clustering/gpu_clustering.h"
#include "engine/policies/gpu_packing/gpu_packing.h"
#include "engine/policies/random/random_policy.h"

namespace gangplank::engine::policies {

const std::vector<PolicyInfo>& AllPolicies() {
  static const std::vector<PolicyInfo> kPolicies = {
      {"random", "Random", "uniform among fitting nodes"},
      {"dotprod", "DotProd", "smallest dot product of free (CPU, GPU) and demand"},
      {"gpuclustering", "GpuClustering", "keep pods with the same GPU request together"},
      {"gpupacking", "GpuPacking", "partly used GPUs, then used nodes, then idle nodes"},
      {"bestfit", "BestFit", "least CPU+GPU left after placement"},
      {"fgd", "FGD", "fragmentation gradient descent (Weng et al., ATC '23)"},
      {"fragpack", "FragPack (ours)",
       "fragmentation gradient counting CPU-stranded GPUs and usable models, keeps scarce node kinds, best-fit ties"},
  };
  return kPolicies;
}

const std::vector<PolicyInfo>& VariantPolicies() {
  static const std::vector<PolicyInfo> kVariants = {
      {"fgd-bf", "FGD + BestFit ties", "FGD's integer score, equal scores to the fuller node"},
      {"fragpack-no-stranding", "FragPack − CPU stranding", "FragPack without the CPU-stranding term"},
      {"fragpack-no-exact", "FragPack − exact gradient", "FragPack ranking by FGD's integer score"},
      {"fragpack-no-bestfit", "FragPack − BestFit ties", "FragPack without the fuller-node tie-break"},
      {"fragpack-no-usable", "FragPack − usable share",
       "FragPack counting free GPUs for tasks that cannot use the model"},
      {"fragpack-no-scarcity", "FragPack − scarcity", "FragPack without the scarce-node-kind charge"},
      {"fragpack-no-scarcity-no-usable", "FragPack − scarcity − usable share",
       "FragPack without the scarcity charge and with FGD's model rule in the measure"},
      {"fragpack-scarcity-by-model", "FragPack, scarcity by model",
       "FragPack with node kinds told apart by GPU model only"},
  };
  return kVariants;
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const PolicyInfo& p : AllPolicies()) names.push_back(p.name);
  return names;
}

const PolicyInfo& FindPolicy(std::string_view name) {
  for (const auto* list : {&AllPolicies(), &VariantPolicies()}) {
    for (const PolicyInfo& p : *list) {
      if (p.name == name) return p;
    }
  }
  std::string known;
  for (const auto* list : {&AllPolicies(), &VariantPolicies()}) {
    for (const PolicyInfo& p : *list) known += (known.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown policy '" + std::string(name) + "' (known: " + known + ")");
}

namespace {

// FragPack with one part turned off, for the ablation table in frag_pack/README.md.
FragPackOptions FragPackAblation(const std::string& name) {
  FragPackOptions o;
  o.name = name;
  if (name == "fragpack-no-stranding") o.cpu_stranding_weight = 0;
  if (name == "fragpack-no-exact") o.exact_gradient = false;
  if (name == "fragpack-no-bestfit") o.best_fit_tie_break = false;
  if (name == "fragpack-no-usable") o.usable_share_only = false;
  if (name == "fragpack-no-scarcity" || name == "fragpack-no-scarcity-no-usable") o.scarcity_weight = 0;
  if (name == "fragpack-no-scarcity-no-usable") o.usable_share_only = false;
  if (name == "fragpack-scarcity-by-model") o.scarcity_by_node_shape = false;
  return o;
}

}  // namespace

std::unique_ptr<ScoringPolicy> MakePolicy(std::string_view name, const std::vector<PodRequest>& workload,
                                          std::uint64_t seed) {
  const std::string& n = FindPolicy(name).name;
  if (n == "random") return std::make_unique<RandomPolicy>(seed);
  if (n == "dotprod") return std::make_unique<DotProdPolicy>();
  if (n == "gpuclustering") return std::make_unique<GpuClusteringPolicy>();
  if (n == "gpupacking") return std::make_unique<GpuPackingPolicy>();
  if (n == "bestfit") return std::make_unique<BestFitPolicy>();
  if (n == "fgd") return MakeFgdPolicy(workload);
  if (n == "fgd-bf") {
    FragPackOptions o;
    o.name = "fgd-bf";
    o.cpu_stranding_weight = 0;
    o.exact_gradient = false;
    return MakeFragPackPolicy(workload, o);
  }
  return MakeFragPackPolicy(workload, FragPackAblation(n));
}

}  // namespace gangplank::engine::policies
