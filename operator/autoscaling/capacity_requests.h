// Nodes asked of an autoscaler for waiting gangs (a GPUPool's spec.autoscaling). Autoscalers add nodes for
// pods kube-scheduler marked Unschedulable and ignore gated ones, and gangplank keeps a waiting gang's
// pods gated; so for a gang the engine found no room for (engine/autoscaling/new_nodes.h: how many nodes,
// in which domain) gangplank creates placeholder pods in its own namespace, one per member left without
// room, each asking what the member asks, pinned to the pool's nodes and the chosen domain, run by a
// scheduler of their own (the cluster's default-scheduler): Karpenter and cluster-autoscaler provision
// for them as for any pending pod, in one batch. A pool asks for one gang a second, oldest first, so an
// autoscaler that cannot add everything serves the older gangs whole before parts of younger ones. Landed placeholders hold their nodes (an
// autoscaler removes empty ones) until every one of the request has landed; then all are deleted at once
// and the next round admits the gang whole on the room they leave. Nothing is asked for a gang its
// queue's limit or turn holds back: only gangs the round blocked for want of GPUs, topology or eligible
// nodes are asked for.
//
// A request not served within the pool's provisionTimeoutSeconds (a NodePool's limit, no instance type, no
// capacity) is reported (condition NodesNotProvisioned and a Warning Event) and stands: the autoscaler
// keeps trying the pending placeholders, and the landed ones keep the nodes it did add. When two or more
// of a pool's requests are stalled, the youngest gives way (its placeholders and their nodes go, and it
// asks again after a timeout), so gangs that each hold part of what the autoscaler may add never wait
// for each other for ever. Placeholders are
// found again by their labels after a restart or a new leader.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/objects/kube_objects.h"
#include "engine/autoscaling/new_nodes.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

inline constexpr const char* kPlaceholderLabel = "gangplank.io/capacity-for";  // The gang key's hash.
inline constexpr const char* kPlaceholderGangAnnotation = "gangplank.io/capacity-for-gang";
inline constexpr const char* kPlaceholderPoolAnnotation = "gangplank.io/capacity-pool";

struct PlaceholderOptions {
  std::string namespace_ = "gangplank-system";  // gangplank's own: tenants cannot write pods there.
  std::string scheduler = "default-scheduler";
  std::string image = "registry.k8s.io/pause:3.10";
};

// One waiting gang of an autoscaled pool the round found no room for.
struct CapacityAsk {
  std::string gang_key;
  std::optional<engine::NewNodes> nodes;  // nullopt: new nodes cannot hold it (`why`).
  std::string why;
  std::vector<engine::PodRequest> members;  // The gang's member requests (what a placeholder asks).
  std::string domain_label;
};

// What a gang's condition says while its nodes are asked for, instead of the round's reason.
struct CapacityNote {
  std::string reason;  // AwaitingNodes, NodesNotProvisioned, AutoscalerCannotHold
  std::string message;
  bool warning = false;  // Also an Event of type Warning (a failure, once per failure).
};

class CapacityRequests {
 public:
  CapacityRequests(ClusterWriter& writer, PlaceholderOptions options);

  // A pod the informer reports. True when it is one of gangplank's placeholders (then it is not a
  // gang's member), with `pool` set to the pool that asked for it. Thread-safe.
  bool Observe(const cache::PodInfo& pod, bool removed, std::string& pool);

  // After a round of `pool`: deletes the placeholders of requests that all landed, of gangs `admitted`
  // and of gangs out of `waiting` for a few seconds (gone, or routed elsewhere: not one round's refresh),
  // reports requests past their timeout, and asks for the nodes of each gang in `asks` that has none
  // asked. Returns what each asked-for gang's condition should say.
  std::map<std::string, CapacityNote> Reconcile(const std::string& pool, const cache::PoolConfig& config,
                                                const std::vector<CapacityAsk>& asks, const std::set<std::string>& waiting,
                                                const std::set<std::string>& admitted, double now);
  // When a full round of `pool` is next due for its requests (infinity when none): one times out, the
  // nodes of one settle, a gang that gave way may ask again, or a gang left for the spacing is asked.
  double NextDeadline(const std::string& pool, const cache::PoolConfig& config) const;

 private:
  // A gang's open request: its placeholders, when it was made, and once all landed (and were deleted)
  // how many and when, for the settling time.
  struct Request {
    std::string pool;
    double asked_at = 0;
    int nodes = 0;
    std::string where;  // "gangplank.io/clique=c0" or "the pool"
    std::map<std::string, cache::PodInfo> placeholders;  // By name; deleted ones leave.
    int landed = 0;
    double last_landed = -1;
    bool adopted = false;  // Found by its placeholders, not asked here: `nodes` counts them.
    double first_asked = 0;
    bool stalled = false;      // Not served within the timeout.
    bool stalled_now = false;  // Came to be stalled (again) in this sweep.
    int landed_now = 0;        // Placeholders on a node as of the last sweep.
    double absent_since = -1;  // Since when the gang is not among the pool's waiting ones (-1: it is).
  };

  // Under mu_: the pool's requests judged after a round (placeholders to delete into `doomed`).
  void Sweep(const std::string& pool, const cache::PoolConfig& config, const std::set<std::string>& waiting,
             const std::set<std::string>& admitted, double now, std::vector<cache::PodInfo>& doomed);
  void YieldYoungestStalled(const std::string& pool, const cache::PoolConfig& config, double now,
                            std::vector<cache::PodInfo>& doomed);
  CapacityNote NoteOf(const Request& r, const cache::PoolConfig& config) const;
  void Ask(const std::string& pool, const cache::PoolConfig& config, const CapacityAsk& ask, double now);
  nlohmann::json PlaceholderPod(const std::string& name, const std::string& pool, const std::string& gang_key,
                                const cache::PoolConfig& config, const engine::PodRequest& member,
                                const std::string& domain_label, const std::string& domain) const;

  ClusterWriter& writer_;
  PlaceholderOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, Request> requests_;  // By gang key.
  struct Yielded {
    std::string pool;
    double until = 0;  // When it may ask again.
  };
  std::map<std::string, Yielded> yielded_;   // Gangs that gave way, by key.
  std::map<std::string, double> last_ask_;   // When each pool last asked for a gang's nodes.
  std::set<std::string> spaced_;             // Pools that left a gang unasked for the spacing.
};

}  // namespace gangplank::op
