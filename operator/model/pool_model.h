// Everything the operator keeps about one GPU pool between admission rounds:
//   - its cluster state (cache::ClusterState scoped to the pool's nodes, topology levels and the pods
//     holding capacity there), kept current by the shared feed;
//   - what changed since the last round (gangs touched, capacity freed, queues or running gangs
//     changed), noted by informer handlers from any thread;
//   - the admission book (the round's input, kept gang by gang), the nodes held for waiting gangs, the
//     gangs being evicted, recent evictions (the preemption budget's window) and requeued gangs' places.
// The reconciler is the only reader of the book and runs one round per pool at a time (the work
// queue never hands one key to two workers).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/state/cluster_state.h"
#include "engine/admission/admission_input.h"
#include "engine/admission/round_scope.h"
#include "engine/scoring_policy.h"
#include "operator/model/admission_book.h"
#include "operator/model/idle_book.h"
#include "operator/model/restart_book.h"
#include "operator/model/runtime_book.h"
#include "operator/model/usage_book.h"

namespace gangplank::op {

struct PoolChanges {
  std::set<std::string> gangs;
  bool capacity_freed = false;
  bool queues_changed = false;
  bool running_changed = false;
  bool nodes_changed = false;  // A node came, went, or changed what it offers: gangs on it may have lost it.
};

// Per queue, what the last round saw: for GPUPool and Queue status.
struct QueueFigures {
  double fair_share = 0;
  double used = 0;
  int pending = 0;
  double oldest_pending_seconds = 0;
  double used_gpu_hours = 0;   // Over the pool's usage window.
  double decayed_usage = -1;   // Past usage time-based fair share counts; negative: the pool does not opt in.
};

// How long an evicted gang's place in its queue is kept for pods that have not come back (their owner
// recreates them in seconds; an owner that never does must not leave the entry for good).
inline constexpr double kRequeuedPlaceSeconds = 3600;

// How long the nodes of a gang whose controller restarts it stay held for it (a JobSet's or a
// LeaderWorkerSet's own restart makes the pods again within seconds; one that never does, such as a
// JobSet without a failure policy that fails instead, must not keep the nodes idle for long).
inline constexpr double kReturningHoldSeconds = 30;
// How long the nodes planned for members a controller makes only after the first is placed (a
// LeaderWorkerSet's workers once their leader is scheduled, or running: an image pull) are held for them.
inline constexpr double kLaterMembersHoldSeconds = 300;

class PoolModel {
 public:
  // `owns_node` says which nodes are the pool's (its selector, minus nodes another pool selects too).
  PoolModel(cache::PoolConfig config, std::function<bool(const engine::NodeSpec&)> owns_node);

  const cache::PoolConfig& config() const { return config_; }
  cache::ClusterState& state() { return *state_; }

  // From any thread.
  void NoteGang(const std::string& key);
  void NoteCapacityFreed();
  void NoteQueuesChanged();
  void NoteRunningChanged();
  void NoteNodesChanged();
  PoolChanges TakeChanges();
  bool HasChanges() const;

  // Held by whoever uses the book: a reconcile, or a dry run planning a hypothetical gang.
  std::mutex round_mutex;

  // Reconciler-owned.
  AdmissionBook book;
  std::map<std::string, std::string> gang_pool_verdicts;     // Gang key -> why it is not in this pool's book ("" = it is).
  struct Reservation {
    std::vector<std::string> nodes;  // Node names (node ids change when the state is rebuilt).
    bool for_reclaim = false;
  };
  std::map<std::string, Reservation> reservations;            // By waiting gang key.
  // The reservations as the engine's round takes them: node names resolved in `view` (nodes gone dropped).
  std::vector<engine::HeldReservation> HeldReservations(const cache::StateView& view) const;
  std::set<std::string> evicting;                             // Running gangs being evicted.
  std::map<std::string, double> shielded;                     // Gangs a budget kept from eviction, until when.
  std::vector<double> recent_evictions;                       // Times, for the budget's window.
  struct RequeuedPlace {
    double arrival = 0;     // The place an evicted gang keeps when its pods come back.
    double evicted_at = 0;  // Forgotten kRequeuedPlaceSeconds after this if the gang never came back.
  };
  std::map<std::string, RequeuedPlace> requeued_arrivals;     // By gang key.
  // Drops the places of evicted gangs that have not come back within kRequeuedPlaceSeconds.
  void ForgetStalePlaces(double now, const std::function<bool(const std::string&)>& gang_exists);
  // Nodes kept for a gang on its way back (engine::AdmissionInput::returning_nodes), or for the members
  // of an admitted gang its controller has yet to make, by gang key.
  struct ReturningHold {
    std::vector<std::string> nodes;
    double until = 0;
  };
  std::map<std::string, ReturningHold> returning;
  // Before a round: drops the holds past their time, and hands a hold whose gang waits again to it as
  // its reservation. The earliest time a hold ends (1e300 when none).
  double SettleReturning(double now);
  // The held nodes of gangs not waiting yet, resolved in `view`.
  std::vector<engine::NodeId> ReturningNodes(const cache::StateView& view) const;
  std::map<std::string, QueueFigures> queue_figures;
  double last_full_round = -1e300;
  double next_wakeup = 1e300;
  double spot_wakeup = 1e300;                                 // Earliest checkpoint deadline waited for.
  // The pool's nodes under notice at the last spot look; a node leaving it (and a new model, which may
  // follow a leader that asked) sends the look over every running gang for requests to take back.
  std::set<std::string> spot_nodes;
  bool spot_requests_checked = false;
  // Fault recovery (faults/gang_restarter.h): the gangs' restart records (the status's gangRestarts,
  // read back once when the model is made), whether they changed since the last status write, and since
  // when running gangs are below their minimum members.
  RestartBook restarts;
  bool status_seeded = false;   // Restart records and usage read back from the status (once per model).
  bool restarts_changed = false;
  std::map<std::string, double> below_minimum_since;
  // Nodes whose admitted gangs hold more GPUs than they offer, since when (a shortfall counts after the
  // node grace: a node moving between the device plugin and DRA offers none for a moment).
  std::map<std::string, double> shortfall_since;
  double fault_wakeup = 1e300;                                // Earliest time a fault decision is due.
  double last_fault_look = -1e300;                            // When running gangs were last looked over.
  // GPU use (utilization/): idle gangs, and the GPU-seconds counted so far (the status's usage).
  IdleBook idle;
  double idle_wakeup = 1e300;                                 // Earliest idle-reclaim deadline waited for.
  UsageBook usage;
  RuntimeBook runtimes;                                       // Runtime prediction (spec.admission.runtimePrediction).
  std::uint64_t state_generation = 0;                         // When it changes, every entry is rebuilt.
  std::unique_ptr<engine::ScoringPolicy> policy;
  std::string last_status;                                    // Last status written (JSON text).
  std::string last_ready;                                     // Its Ready condition (status, reason, message).
  double last_status_write = -1e300;

 private:
  cache::PoolConfig config_;
  std::unique_ptr<cache::ClusterState> state_;
  mutable std::mutex mu_;
  PoolChanges changes_;
};

}  // namespace gangplank::op
