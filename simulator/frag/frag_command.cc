#include "simulator/frag/frag_command.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/policies/registry.h"
#include "simulator/csv_table.h"
#include "simulator/frag/frag_output.h"
#include "simulator/frag/frag_runner.h"
#include "simulator/frag/published_figures.h"
#include "simulator/frag/seed_list.h"
#include "simulator/openb/derived_workload.h"
#include "simulator/openb/openb_loader.h"
#include "simulator/progress_bar.h"

namespace gangplank::simulator {
namespace {

struct FragOptions {
  std::string nodes = frag::BundledOpenbNodeList();
  std::string pods = frag::BundledOpenbPodList();
  std::string policies;  // Empty: all.
  std::string seeds = "42..51";
  std::string out = "out";
  double target = 1.3;
  int threads = 2;
  std::string order = "shuffled";
  std::string ties = "node-order";
  std::string derive;  // A workload shape derived from --pods (openb/derived_workload.h); empty: as is.
  std::uint64_t derive_seed = 1;
};

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    if (!part.empty()) parts.push_back(part);
    start = end + 1;
  }
  return parts;
}

void Run(const FragOptions& o) {
  std::vector<std::string> policies = o.policies.empty() ? engine::policies::PolicyNames() : SplitComma(o.policies);
  for (const std::string& p : policies) engine::policies::FindPolicy(p);  // Fail before any work.
  const std::vector<std::uint64_t> seeds = frag::ParseSeedList(o.seeds);

  const std::vector<engine::NodeSpec> nodes = openb::LoadNodes(o.nodes);
  std::vector<engine::PodRequest> pods;
  for (auto& p : openb::LoadPods(o.pods)) pods.push_back(std::move(p.request));
  if (pods.empty()) throw InputError(o.pods + ": no pods");
  const openb::DeriveSpec shape = openb::DeriveSpec::Parse(o.derive);
  pods = openb::DeriveWorkload(pods, nodes, shape, o.derive_seed);

  const auto start = std::chrono::steady_clock::now();
  std::vector<double> run_seconds;
  std::vector<frag::FragReplayResult> results;
  {
    ProgressBar bar("fragmentation replay");
    const frag::ArrivalMode mode = o.order == "trace" ? frag::ArrivalMode::kTraceOrder : frag::ArrivalMode::kShuffled;
    const frag::TieBreak ties = o.ties == "random" ? frag::TieBreak::kRandom : frag::TieBreak::kNodeOrder;
    results = frag::RunFragReplays(nodes, pods, policies, seeds, o.target, o.threads,
                                   [&bar](int done, int total) { bar.Update(done, total); }, &run_seconds, mode,
                                   ties);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::vector<frag::PolicySummary> summary = frag::Summarise(results, run_seconds);
  const std::string derived = shape.kind == openb::DeriveSpec::Kind::kNone
                                  ? std::string()
                                  : shape.ToString() + " (derive seed " + std::to_string(o.derive_seed) + ")";
  // The published figures belong to the bundled trace as it is, not to another trace or a derived shape.
  const bool published = derived.empty() && frag::IsBundledOpenbTrace(o.nodes, o.pods);
  frag::WriteFragOutputs(o.out, results, summary,
                         frag::FragRunInfo{o.nodes, o.pods, o.target, wall, o.ties, derived, published});

  std::printf("%-14s %18s %16s %16s\n", "policy", "unallocated@100%", "paper", "alloc@end (med)");
  for (const frag::PolicySummary& s : summary) {
    char paper[32] = "-";
    const frag::PublishedResult* p = published ? frag::PublishedOpenbResult(s.policy) : nullptr;
    if (p) std::snprintf(paper, sizeof paper, "%.2f ± %.2f", p->unallocated_mean, p->unallocated_sd);
    std::printf("%-14s %10.2f ± %4.2f %16s %16.2f\n", s.policy.c_str(), s.unallocated_at_100_mean,
                s.unallocated_at_100_sd, paper, s.allocated_at_130_median);
  }
  if (!derived.empty()) std::printf("workload: %s derived from %s\n", derived.c_str(), o.pods.c_str());
  if (!published && derived.empty()) std::printf("paper: its figures are for the bundled openb trace, not these files\n");
  std::printf("%zu runs on %d thread(s) in %.1f s; wrote %s/report.html\n", results.size(), o.threads, wall,
              o.out.c_str());
}

}  // namespace

void AddFragmentationCommand(CLI::App& app) {
  auto o = std::make_shared<FragOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fragmentation",
      "Fragmentation replay (Weng et al., USENIX ATC '23) on the Alibaba openb trace: for each seed the pods are\n"
      "shuffled, topped up by resampling to --target times the cluster's GPU capacity and placed one by one\n"
      "with no departures and no retries. Reports the unallocated GPU share when the arrived workload reaches\n"
      "100% (mean ± sd over seeds) per policy, next to the paper's published numbers when the trace is the\n"
      "bundled one as it is, and writes summary.csv, summary.json, curves/*.csv and report.html into --out.\n"
      "Every flag can also come from the environment variable shown next to it.");
  std::string names;
  for (const auto& p : engine::policies::AllPolicies()) names += "\n  " + p.name + ": " + p.summary;
  for (const auto& p : engine::policies::VariantPolicies()) names += "\n  " + p.name + " (not in the default set): " + p.summary;
  cmd->add_option("--nodes", o->nodes, "Node list CSV (sn,cpu_milli,memory_mib,gpu,model)")
      ->envname("GANGPLANK_SIM_FRAG_NODES")
      ->capture_default_str();
  cmd->add_option("--pods", o->pods, "Pod list CSV (name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...)")
      ->envname("GANGPLANK_SIM_FRAG_PODS")
      ->capture_default_str();
  cmd->add_option("--policies", o->policies, "Comma-separated policies to compare (default: all):" + names)
      ->envname("GANGPLANK_SIM_FRAG_POLICIES");
  cmd->add_option("--seeds", o->seeds, "Seeds: a range A..B and/or a comma-separated list, e.g. 42..51 or 1,7,9")
      ->envname("GANGPLANK_SIM_FRAG_SEEDS")
      ->capture_default_str();
  cmd->add_option("--target", o->target, "Top the workload up to this multiple of GPU capacity")
      ->envname("GANGPLANK_SIM_FRAG_TARGET")
      ->check(CLI::Range(0.01, 10.0))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Worker threads (each policy x seed run owns its cluster)")
      ->envname("GANGPLANK_SIM_FRAG_THREADS")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--order", o->order,
                  "Arrival order: 'shuffled' (seeded shuffle, then resampled top-up; the paper's method) or\n"
                  "'trace' (resampled pods first, then the trace in file order, as the paper's simulator\n"
                  "orders them when shuffling is off)")
      ->envname("GANGPLANK_SIM_FRAG_ORDER")
      ->check(CLI::IsMember({"shuffled", "trace"}))
      ->capture_default_str();
  cmd->add_option("--ties", o->ties,
                  "How equal best scores are broken: 'node-order' (the first node in a seeded random node order,\n"
                  "as the paper's simulator does; the default) or 'random' (uniformly, as upstream kube-scheduler)")
      ->envname("GANGPLANK_SIM_FRAG_TIES")
      ->check(CLI::IsMember({"node-order", "random"}))
      ->capture_default_str();
  cmd->add_option("--derive", o->derive,
                  "Replay a workload shape derived from --pods by a seeded procedure (data/README.md):\n"
                  "'model-constrained:S' (a share S of the GPU pods must run on one GPU model drawn from the\n"
                  "cluster's model mix) or 'multi-gpu:S' (one-GPU pods replaced by resampled multi-GPU pods\n"
                  "until these are a share S of the GPU pods); fragmentation-aware policies learn from the\n"
                  "derived list")
      ->envname("GANGPLANK_SIM_FRAG_DERIVE")
      ->check([](const std::string& text) -> std::string {
        try {
          openb::DeriveSpec::Parse(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      });
  cmd->add_option("--derive-seed", o->derive_seed, "Seed of the --derive procedure (one derived list for all seeds)")
      ->envname("GANGPLANK_SIM_FRAG_DERIVE_SEED")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output directory (created)")->envname("GANGPLANK_SIM_OUT")->capture_default_str();
  cmd->callback([o] { Run(*o); });
}

}  // namespace gangplank::simulator
