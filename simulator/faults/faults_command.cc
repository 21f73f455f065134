#include "simulator/faults/faults_command.h"

#include <iostream>
#include <memory>

#include "simulator/faults/fault_options.h"
#include "simulator/faults/run_faults_replay.h"
#include "simulator/progress_bar.h"
#include "simulator/time_replay/replay_flags.h"

namespace gangplank::simulator {
namespace {

// A duration or rate flag: a number >= 0, its environment variable, its default shown.
void AddAmount(CLI::App& cmd, const std::string& flag, double& value, const std::string& env, const std::string& help) {
  cmd.add_option(flag, value, help)->envname(env)->check(CLI::Range(0.0, 1e9))->capture_default_str();
}

void AddFaultFlags(CLI::App& cmd, FaultReplayOptions& o) {
  AddAmount(cmd, "--faults-per-node-day", o.faults_per_node_day, "GANGPLANK_SIM_FAULTS_PER_NODE_DAY",
            "Faults per node per day (Poisson). Default: Llama 3's 419 unexpected interruptions in 54 days\n"
            "on 2,048 hosts of 8 GPUs (simulator/faults/README.md cites the source)");
  AddAmount(cmd, "--repair-seconds", o.repair_seconds, "GANGPLANK_SIM_REPAIR_SECONDS",
            "Seconds a node hit by a gpu, host or maintenance fault stays out of service (assumption)");
  AddAmount(cmd, "--checkpoint-write-seconds", o.checkpoint_write_seconds,
            "GANGPLANK_SIM_FAULT_CHECKPOINT_WRITE_SECONDS",
            "Seconds a job takes to write a checkpoint asked for and acknowledge it (assumption)");
  AddAmount(cmd, "--collective-timeout-seconds", o.collective_timeout_seconds,
            "GANGPLANK_SIM_COLLECTIVE_TIMEOUT_SECONDS",
            "per-pod-replacement: seconds the other pods of a job hang in a collective after a member died\n"
            "(default: PyTorch's NCCL process-group timeout, 10 minutes)");
  AddAmount(cmd, "--failure-detection-seconds", o.failure_detection_seconds,
            "GANGPLANK_SIM_FAULT_FAILURE_DETECTION_SECONDS",
            "per-pod-replacement: seconds until the pods of a lost host are replaced (default: Kubernetes'\n"
            "300 s toleration of not-ready/unreachable nodes)");
  AddAmount(cmd, "--user-notice-seconds", o.user_notice_seconds, "GANGPLANK_SIM_USER_NOTICE_SECONDS",
            "no-handling (and restart-gang past its limit): seconds until a failed job's user resubmits it\n"
            "(assumption)");
  AddAmount(cmd, "--node-grace-seconds", o.node_grace_seconds, "GANGPLANK_SIM_NODE_GRACE_SECONDS",
            "restart-gang: a lost host counts after this (engine RecoveryConfig)");
  AddAmount(cmd, "--checkpoint-grace-seconds", o.checkpoint_grace_seconds,
            "GANGPLANK_SIM_FAULT_CHECKPOINT_GRACE_SECONDS",
            "restart-gang: the longest a gang on a live host is given to checkpoint (engine RecoveryConfig)");
  cmd.add_option("--restart-limit", o.restart_limit,
                 "restart-gang: restarts charged to a gang before it is failed (engine RecoveryConfig)")
      ->envname("GANGPLANK_SIM_RESTART_LIMIT")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd.add_option("--fault-seeds", o.fault_seeds,
                 "Seeds of the fault sequences, a range A..B and/or a list (1..3, 1,5,9); every policy is replayed\n"
                 "under each, figures are means over seeds")
      ->envname("GANGPLANK_SIM_FAULT_SEEDS")
      ->capture_default_str();
  cmd.add_option("--threads", o.threads, "Worker threads, each replaying one seed and policy at a time")
      ->envname("GANGPLANK_SIM_FAULT_THREADS")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd.add_option("--policies", o.policies, "Fault policies to compare, on the same arrivals and the same faults")
      ->envname("GANGPLANK_SIM_FAULT_POLICIES")
      ->check(CLI::IsMember(FaultPolicyNames()))
      ->delimiter(',')
      ->capture_default_str();
}

}  // namespace

void AddFaultReplayCommand(CLI::App& app) {
  // Owned by the callback, which CLI11 keeps alive as long as the app.
  auto options = std::make_shared<FaultReplayOptions>();
  options->replay.progress = ProgressBar::StderrIsTerminal();
  CLI::App* cmd = app.add_subcommand(
      "faults",
      "Failure replay: the Philly time replay (see `time`) on a cluster whose nodes fail at\n"
      "--faults-per-node-day (Llama 3's published rate by default), as GPU, host, maintenance and software\n"
      "faults in Llama 3's mix. The faults are drawn once per seed (--fault-seeds) and replayed under each\n"
      "policy on the same arrivals: restart-gang (gangplank: the engine restarts a hit gang whole, after a\n"
      "checkpoint when its host still runs, with a restart limit and backoff), per-pod-replacement (Kubernetes\n"
      "alone: the dead pod is replaced, the rest of the job hangs in a collective until it times out, then the\n"
      "job restarts), no-handling (the job stays broken until its user resubmits it). Reclaim for fair share is\n"
      "off by default here (--reclaim true turns it on). Writes summary.csv, runs.csv, summary.json and\n"
      "faults.csv into --out. Every flag can also come from the environment variable shown next to it.");
  AddReplayFlags(*cmd, options->replay);
  AddFaultFlags(*cmd, *options);
  cmd->callback([options] {
    // InputError (bad trace files) propagates to main, which prints it and exits non-zero.
    const int code = RunFaultReplay(*options, std::cout);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace gangplank::simulator
