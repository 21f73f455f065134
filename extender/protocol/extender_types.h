// The extender wire types of k8s.io/kube-scheduler/extender/v1 (field names are the Go field names of
// its types.go). Request types hold what was decoded; result types are encoded by encode.h exactly as
// Go's encoding/json would write them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extender/protocol/failed_nodes.h"
#include "extender/protocol/node_victims_map.h"
#include "cache/objects/kube_objects.h"

namespace gangplank::extender {

// One node of ExtenderArgs.Nodes (nodeCacheCapable=false): its name and its JSON text, which points
// into the request body so a filter reply can echo the node without re-encoding it.
struct NodeItem {
  std::string name;
  std::string_view raw_json;
};

// Body of filter and prioritize. Exactly one of nodes / node_names is set by kube-scheduler.
struct ExtenderArgs {
  cache::PodInfo pod;
  std::optional<std::vector<NodeItem>> nodes;  // Nodes.items, or nullopt for "Nodes": null.
  // NodeNames, or nullopt for null. Views into the RequestDecoder that decoded them, valid until it
  // decodes again: thousands of names per call are not worth a copy each.
  std::optional<std::vector<std::string_view>> node_names;
  // Every node_names entry is known to be plain JSON (IsPlainJsonString), so encoders need not check;
  // false: unknown.
  bool names_plain = false;

  // The candidate node names whichever mode the scheduler uses.
  std::vector<std::string_view> CandidateNames() const;
};

// Preemption requests name hundreds of nodes with a few victims each (NodeVictimsMap, MetaVictims).
// Node names and UIDs are views of strings owned elsewhere: the request body or the RequestDecoder's
// buffer (valid while the body is unchanged and until the decoder decodes again), the decoded request,
// or the cluster-state cache for gang mates the extender adds (valid while the state is unchanged, so
// a reply holding them is encoded under the state's read lock).

struct Victims {
  std::vector<cache::PodInfo> pods;
  std::int64_t num_pdb_violations = 0;
};

struct ExtenderPreemptionArgs {
  cache::PodInfo pod;
  std::optional<std::map<std::string, Victims>> node_to_victims;           // nodeCacheCapable=false.
  std::optional<NodeVictimsMap> node_to_meta_victims;                    // nodeCacheCapable=true.

  // Victim UIDs per node whichever mode the scheduler uses (views of this request's strings).
  NodeVictimsMap CandidateVictims() const;
};

struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};


struct ExtenderFilterResult {
  // Nodes as a NodeList of node objects (JSON text), or nullopt for null.
  std::optional<std::vector<std::string_view>> nodes;
  std::optional<std::vector<std::string_view>> node_names;  // Views of the request's names.
  std::optional<FailedNodesMap> failed_nodes;
  std::optional<FailedNodesMap> failed_and_unresolvable_nodes;
  std::string error;
  // Every node name in node_names and the two maps is known to be plain JSON (the request's names were,
  // see ExtenderArgs::names_plain), so the encoder need not check them; false: unknown.
  bool names_plain = false;
};

// The host is a view of the candidate name in the request: a reply is encoded while the request lives,
// and copying hundreds of names per call would cost more than scoring them.
struct HostPriority {
  std::string_view host;
  std::int64_t score = 0;
};

inline constexpr std::int64_t kMinExtenderPriority = 0;
inline constexpr std::int64_t kMaxExtenderPriority = 10;

struct ExtenderPreemptionResult {
  NodeVictimsMap node_to_meta_victims;
};

struct ExtenderBindingResult {
  std::string error;
};

}  // namespace gangplank::extender
