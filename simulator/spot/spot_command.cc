#include "simulator/spot/spot_command.h"

#include <iostream>
#include <memory>

#include "simulator/progress_bar.h"
#include "simulator/spot/run_spot_replay.h"
#include "simulator/spot/spot_options.h"
#include "simulator/time_replay/replay_flags.h"

namespace gangplank::simulator {
namespace {

void AddSpotFlags(CLI::App& cmd, SpotReplayOptions& o) {
  cmd.add_option("--spot-fraction", o.spot_fraction,
                 "Fraction of the nodes that are spot (chosen by each of --spot-seeds)")
      ->envname("GANGPLANK_SIM_SPOT_FRACTION")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--interruptions-per-node-month", o.interruptions_per_node_month,
                 "Reclaims per spot node per 30 days (Poisson). Default: 0.20, "
                 "the edge of the AWS Spot Instance\n"
                 "Advisor's highest frequency-of-interruption bucket ('>20%'); "
                 "its others are <5%, 5-10%,\n"
                 "10-15%, 15-20% (simulator/spot/README.md cites the source)")
      ->envname("GANGPLANK_SIM_INTERRUPTIONS_PER_NODE_MONTH")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd.add_option("--notice-seconds", o.notice_seconds,
                 "Seconds from the termination notice to the node going (AWS: "
                 "120; GKE and Azure: 30)")
      ->envname("GANGPLANK_SIM_NOTICE_SECONDS")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  cmd.add_option("--replacement-seconds", o.replacement_seconds,
                 "Seconds from a node going to its replacement joining "
                 "(assumption: the autoscaler's launch\n"
                 "and a GPU node's boot and join)")
      ->envname("GANGPLANK_SIM_REPLACEMENT_SECONDS")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cmd.add_option("--checkpoint-write-seconds", o.checkpoint_write_seconds,
                 "Seconds a job takes to write the checkpoint asked for on "
                 "notice and acknowledge it\n"
                 "(assumption); later than the deadline counts as late")
      ->envname("GANGPLANK_SIM_CHECKPOINT_WRITE_SECONDS")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  cmd.add_option("--checkpoint-grace-seconds", o.checkpoint_grace_seconds,
                 "checkpoint-then-requeue: the longest a gang is given to "
                 "checkpoint (engine SpotConfig)")
      ->envname("GANGPLANK_SIM_CHECKPOINT_GRACE_SECONDS")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  cmd.add_option("--eviction-margin-seconds", o.eviction_margin_seconds,
                 "checkpoint-then-requeue: evict at the latest this long "
                 "before the node goes (engine SpotConfig)")
      ->envname("GANGPLANK_SIM_EVICTION_MARGIN_SECONDS")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  cmd.add_option("--failure-detection-seconds", o.failure_detection_seconds,
                 "ignore: seconds the rest of a gang holds its GPUs after its "
                 "node went, until the job is\n"
                 "noticed failed (default: Kubernetes' 300 s toleration of "
                 "not-ready/unreachable nodes)")
      ->envname("GANGPLANK_SIM_FAILURE_DETECTION_SECONDS")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cmd.add_option("--spot-seeds", o.spot_seeds,
                 "Seeds of the reclaim sequences, a range A..B and/or a list (1..3, 1,5,9): each picks the spot\n"
                 "nodes and draws the reclaims; every policy is replayed under each, figures are means over seeds")
      ->envname("GANGPLANK_SIM_SPOT_SEEDS")
      ->capture_default_str();
  cmd.add_option("--threads", o.threads, "Worker threads, each replaying one seed and policy at a time")
      ->envname("GANGPLANK_SIM_SPOT_THREADS")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd.add_option("--policies", o.policies, "Spot policies to compare, on the same arrivals and the same reclaims")
      ->envname("GANGPLANK_SIM_SPOT_POLICIES")
      ->check(CLI::IsMember(SpotPolicyNames()))
      ->delimiter(',')
      ->capture_default_str();
}

}  // namespace

void AddSpotReplayCommand(CLI::App& app) {
  // Owned by the callback, which CLI11 keeps alive as long as the app.
  auto options = std::make_shared<SpotReplayOptions>();
  options->replay.progress = ProgressBar::StderrIsTerminal();
  CLI::App* cmd = app.add_subcommand(
      "spot",
      "Spot replay: the Philly time replay (see `time`) on a cluster of which --spot-fraction of the nodes\n"
      "are spot. Each spot node is reclaimed at --interruptions-per-node-month (a published rate): a notice,\n"
      "--notice-seconds later the node goes, --replacement-seconds later a replacement joins. The reclaims are\n"
      "drawn once per seed (--spot-seeds) and replayed under each policy on the same arrivals:\n"
      "checkpoint-then-requeue (gangplank: the engine asks each gang on a node under notice to checkpoint by a\n"
      "deadline, evicts it whole on acknowledgement or at the deadline and requeues it at the head of its\n"
      "queue), evict-on-notice (evicted whole at once), ignore (the node goes with its pods; the rest of the\n"
      "gang holds its GPUs until the job is noticed failed). Reclaim for fair share is off by default here\n"
      "(--reclaim true turns it on). Writes summary.csv, runs.csv, summary.json and report.html into --out.\n"
      "Every flag can also come from the environment variable shown next to it.");
  AddReplayFlags(*cmd, options->replay);
  AddSpotFlags(*cmd, *options);
  cmd->callback([options] {
    // InputError (bad trace files) propagates to main, which prints it and exits non-zero.
    const int code = RunSpotReplay(*options, std::cout);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace gangplank::simulator
