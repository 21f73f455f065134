#include "extender/protocol/encode.h"

#include "extender/protocol/json_writer.h"

namespace gangplank::extender {
namespace {

void WriteFailedNodes(JsonWriter& w, std::string_view key, const std::optional<FailedNodesMap>& map) {
  w.Key(key);
  if (!map) {
    w.Null();
    return;
  }
  w.BeginObject();
  for (const auto& [node, reason] : *map) w.Key(node).String(reason);  // std::map: sorted as Go sorts.
  w.EndObject();
}

}  // namespace

std::string EncodeFilterResult(const ExtenderFilterResult& r) {
  std::string out;
  size_t estimate = 96;
  if (r.nodes) for (auto n : *r.nodes) estimate += n.size() + 1;
  if (r.node_names) estimate += r.node_names->size() * 24;
  out.reserve(estimate);
  JsonWriter w(out);
  w.BeginObject();
  w.Key("Nodes");
  if (r.nodes) {
    // v1.NodeList with empty TypeMeta and ListMeta, as kube-scheduler builds it.
    w.BeginObject().Key("metadata").BeginObject().EndObject().Key("items").BeginArray();
    for (std::string_view node : *r.nodes) w.Raw(node);
    w.EndArray().EndObject();
  } else {
    w.Null();
  }
  w.Key("NodeNames");
  if (r.node_names) {
    w.BeginArray();
    for (const auto& name : *r.node_names) w.String(name);
    w.EndArray();
  } else {
    w.Null();
  }
  WriteFailedNodes(w, "FailedNodes", r.failed_nodes);
  WriteFailedNodes(w, "FailedAndUnresolvableNodes", r.failed_and_unresolvable_nodes);
  w.Key("Error").String(r.error);
  w.EndObject();
  return out;
}

std::string EncodeHostPriorityList(const std::vector<HostPriority>& list) {
  std::string out;
  out.reserve(2 + list.size() * 40);
  JsonWriter w(out);
  w.BeginArray();
  for (const auto& p : list) w.BeginObject().Key("Host").String(p.host).Key("Score").Int(p.score).EndObject();
  w.EndArray();
  return out;
}

std::string EncodePreemptionResult(const ExtenderPreemptionResult& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("NodeNameToMetaVictims").BeginObject();
  for (const auto& [node, victims] : r.node_to_meta_victims) {
    w.Key(node).BeginObject().Key("Pods").BeginArray();
    for (const auto& uid : victims.uids) w.BeginObject().Key("UID").String(uid).EndObject();
    w.EndArray().Key("NumPDBViolations").Int(victims.num_pdb_violations).EndObject();
  }
  w.EndObject().EndObject();
  return out;
}

std::string EncodeBindingResult(const ExtenderBindingResult& r) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("Error").String(r.error).EndObject();
  return out;
}

std::string EncodeErrorBody(std::string_view message) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject().Key("Error").String(message).EndObject();
  return out;
}

}  // namespace gangplank::extender
