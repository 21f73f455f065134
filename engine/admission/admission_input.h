// What one admission round looks at: a pool's queues, the gangs waiting in them, the gangs running,
// the reservations held from earlier rounds, and the knobs of the round. Plain data, filled by the
// operator from the API server and by the simulator from its replay; the round itself is pure.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/allocation.h"
#include "engine/gang/gang_request.h"

namespace gangplank::engine {

// A queue of the pool. Queues may form a tree (`parent`): a queue divides its fair share among its
// children by their weights, guarantees and limits, as the pool divides its GPUs among the top-level
// queues. Gangs wait in leaves only; a queue that is some queue's parent is inner and holds none.
struct AdmissionQueue {
  std::string name;
  double weight = 1;      // Among its siblings.
  double guaranteed = 0;  // GPUs never reclaimed from the queue (with everything below it) while it uses them.
  double limit = std::numeric_limits<double>::infinity();  // GPUs the queue, with everything below it, may hold.
  std::string parent;     // Name of the queue it belongs to; empty: a top-level queue of the pool.
  // A waiting gang of this (leaf) queue may evict running gangs of the same queue with a strictly lower
  // priority when it cannot start otherwise (ReclaimConfig's victim rules and budget apply).
  bool preempt_lower_priority = false;
  // How long this queue's gangs run before they may be evicted (reclaim and priority preemption);
  // unset: ReclaimConfig::min_runtime_seconds.
  std::optional<double> min_runtime_seconds;
  // Time-based fair share (opt-in per pool): GPUs the queue held in the past, as a decayed average
  // (UsageLedger::DecayedGpus, engine/fairshare/usage_ledger.h), counted beside what it holds now when
  // gangs are ordered for admission and queues for reclaim. 0 when the pool does not opt in.
  double past_usage = 0;
};

struct WaitingGang {
  // request.queue names an AdmissionQueue; request.name must be unique (checked, and used, only to
  // match reservations).
  GangRequest request;
  double arrival = 0;     // Seconds, any epoch shared with `now`.
  // Requeued after an eviction: ahead of every gang of the same queue and priority.
  bool front = false;
  // Seconds after arrival: a gang that waited longer gives up its reservation and gets no new one (no
  // drain, no evictions for it); it keeps waiting and starts if it fits.
  double timeout = std::numeric_limits<double>::infinity();
  // Seconds it says it will run (gangplank.io/expected-runtime, a Job's activeDeadlineSeconds), when
  // declared: it may then start on nodes reserved for another gang if it leaves before that gang is
  // expected to start there (EASY backfill).
  std::optional<double> expected_runtime;
  // Seconds gangs like it ran, at a high quantile (RuntimePredictor, engine/prediction/), when known:
  // without a declared runtime it may start on reserved nodes on this one, and is then held to it
  // (RunningGang::leave_by).
  std::optional<double> predicted_runtime;
};

struct RunningGang {
  std::string name;
  std::string queue;
  int priority = 0;
  double start = 0;
  // Time of the gang's last checkpoint, when known; work since then is lost on eviction.
  std::optional<double> last_checkpoint;
  std::vector<Allocation> allocations;  // What it holds in the cluster model, one per member.
  // Already being evicted (pods terminating): never chosen again, still holds its capacity.
  bool terminating = false;
  // Admitted but not every member runs yet (pods binding, pulling images...); see
  // AdmissionConfig::start_timeout_seconds.
  bool started = true;
  double admitted_at = 0;   // When the round admitted it (same epoch as `now`).
  int members_started = 0;  // With !started: members running so far, for the message.
  // When it said it would end (start + declared runtime), if it did; see ExpectedEnd (expected_end.h).
  std::optional<double> expected_end;
  // When gangs like it are expected to end, given how long it has run (RuntimePredictor::Remaining):
  // counted after a declared end, before the as-long-again rule.
  std::optional<double> predicted_end;
  // Started on nodes reserved for another gang on its predicted runtime: past this time it is ended
  // (EvictionKind::kBackfillOverrun) once the reserved gang could otherwise start.
  std::optional<double> leave_by;
  // Its GPUs sat idle past its queue's limit under the Preemptible idle policy (engine/idle/): the first
  // victim of reclaim and priority preemption, whatever its queue's share, guarantee or minimum runtime.
  bool idle_preemptible = false;
  // Set by the caller for a one-pod gang whose pod comes back when evicted (its controller recreates
  // it) and may then run elsewhere: the request it would be placed with. Consolidation
  // (ConsolidationConfig) moves only such gangs, and only where this request fits.
  std::optional<PodRequest> move_as;
  // GPU pods gangplank did not place (another scheduler's, or bound at creation) in the queue of their
  // namespace: they count against the queue's limit, guarantee and share like a gang, but gangplank
  // cannot move them, so they are never a victim.
  bool ungoverned = false;
  // GangRequest::exclusive_class of the gang: waiting gangs of the class stay out of its domains.
  std::string exclusive_class;

  double Gpus() const;
};

// Nodes held back for one waiting gang: no other gang lands there until it starts.
struct HeldReservation {
  std::string gang;             // WaitingGang::request.name.
  std::vector<NodeId> nodes;
  bool for_reclaim = false;     // Made when victims were evicted for this gang (it gets no more).
};

// Which nodes a waiting-time reservation drains.
enum class ReservationChoice {
  kMostFreeNow,  // The nodes with the most free GPUs now (ChooseReservation), kept until the gang starts.
  // The domain expected to hold the gang soonest (ChooseSoonestReservation), judged from the running
  // gangs' expected ends and re-judged every round: it moves when another domain is expected to be
  // ready in well under the time still left on its own (ReservationConfig::move_factor).
  kSoonest,
};

// Which queues' gangs may reserve.
enum class ReservationShare {
  // A queue below its fair share, one reservation per queue and pod shape at a time.
  kBelowShare,
  // A queue whose running gangs plus its gangs already holding reservations are below its fair share:
  // several gangs of a queue may drain nodes at once, and a gang larger than what is left of its
  // queue's share still reserves, taking the queue over its share by less than that one gang.
  kEarmarked,
};

struct ReservationConfig {
  // A multi-pod gang that waited this long reserves nodes to drain (if its queue may, see `share`).
  double reserve_after_seconds = std::numeric_limits<double>::infinity();
  double max_node_fraction = 0.25;  // Of the pool's nodes, over all waiting-time reservations.
  ReservationChoice choice = ReservationChoice::kSoonest;
  ReservationShare share = ReservationShare::kBelowShare;
  // A running gang without a declared end is expected to run as long again as it has run (training
  // runs' lengths are heavy-tailed: the longer one has run, the longer it is likely to go on), and at
  // least this long.
  double min_expected_remaining_seconds = 3600;
  // kSoonest: a held reservation moves when another domain is expected ready in less than this
  // fraction of the time its own nodes still need (moving forfeits what was drained so far).
  double move_factor = 0.5;
};

// Fair-share reclaim, and the victim rules and budget it shares with priority preemption
// (AdmissionQueue::preempt_lower_priority, which works whether or not reclaim is enabled).
struct ReclaimConfig {
  bool enabled = false;
  // Only a gang that has waited this long reclaims: short waits end by themselves as jobs finish, and
  // reclaiming for them throws away work for little gain.
  double min_wait_seconds = 3600;
  double min_runtime_seconds = 3600;  // A gang younger than this is never a victim (unless its queue says otherwise).
  // A gang that would lose more work than this (GPU-seconds since its last checkpoint, or since its
  // start when none is known) is never a victim: reclaim must not throw away days of training. Except
  // for a queue below its guarantee, which a gang without checkpoints could otherwise keep from it.
  double max_lost_gpu_seconds = 8 * 3600.0;
  int max_victims_per_round = 4;      // Gangs evicted per round, by reclaim and priority preemption together.
  int max_victims_per_window = 16;    // Gangs evicted per window, counting earlier rounds.
  double window_seconds = 3600;
  int max_beneficiaries_per_round = 4;  // Waiting gangs reclaim (and, apart, preemption) is attempted for per round.
  int max_verifications = 6;            // Full plans tried per beneficiary (candidate victim sets).
};

// Moving small running gangs out of a waiting gang's way (round_consolidation.cc): the pool's free GPUs
// would hold the gang, but they lie in holes too small for it on nodes that others hold. Only for a gang
// whose queue's fair share has room for it.
struct ConsolidationConfig {
  bool enabled = false;
  // Only movable (RunningGang::move_as) single-pod gangs of at most this many GPUs move, each losing at
  // most this much work (GPU-seconds since its last checkpoint); reclaim's minimum runtime and minimum
  // wait apply.
  double max_gpus = 4;
  double max_lost_gpu_seconds = 2 * 3600.0;
  // Gangs moved per round. Moves have their own budget: they cost little work each, and spending
  // reclaim's would leave queues below their share waiting longer to get it back.
  int max_moves_per_round = 4;
};

struct AdmissionConfig {
  // A gang that has waited this long and still does not fit stops later gangs of its own queue from
  // starting past it (other queues still backfill). Without it a queue's stream of small gangs keeps
  // the queue at its fair share, so its large gang never makes the queue fall below its share and
  // never reclaims. Infinity: always backfill.
  double no_backfill_after_seconds = std::numeric_limits<double>::infinity();
  ReservationConfig reservation;
  ReclaimConfig reclaim;
  ConsolidationConfig consolidation;
  // A running gang that is not started this long after its admission is released whole (its members
  // cannot make progress without the rest) so that it is requeued; checked in full rounds. Not an
  // eviction for the budget.
  double start_timeout_seconds = std::numeric_limits<double>::infinity();
};

struct AdmissionInput {
  double now = 0;
  std::vector<AdmissionQueue> queues;
  std::vector<WaitingGang> waiting;
  std::vector<RunningGang> running;
  std::vector<HeldReservation> reservations;
  // Nodes kept for a gang on its way back: its controller restarts it (a JobSet's failure policy, a
  // LeaderWorkerSet recreating a group) and is making its pods again. No waiting gang lands there; once
  // the gang's pods wait, the caller passes these nodes as its HeldReservation instead.
  std::vector<NodeId> returning_nodes;
  std::vector<double> recent_evictions;  // Times of earlier evictions (one per gang), for the window budget.
  // An incremental round (see round_scope.h for when it decides what a full round would): only these
  // waiting indices, and gangs holding reservations, are planned, and only these are beneficiaries of
  // reclaim and preemption. Every other waiting gang still counts for demand and fair shares and is
  // reported NotReplanned. Running gangs are not looked at except to find victims (no start timeouts;
  // next_wakeup counts what the round looked at). Unset: a full round.
  std::optional<std::vector<int>> plan_only;
  // GPUs held per input queue by the running gangs that name it (not subtree totals), kept by the
  // caller so the round need not sum `running` (HeldByQueue computes it, for checks). Unset: summed.
  std::optional<std::vector<double>> held;
};

// What AdmissionInput::held must be: per input queue, the GPUs of the running gangs naming it.
std::vector<double> HeldByQueue(const AdmissionInput& input);

// GPU-seconds of work a running gang loses when evicted at `now`: its GPUs times the time since its
// last checkpoint, or since its start when no checkpoint is known.
double LostGpuSeconds(const RunningGang& gang, double now);

// GPUs (whole-GPU equivalents) a gang's members ask for.
double GangGpus(const GangRequest& gang);

}  // namespace gangplank::engine
