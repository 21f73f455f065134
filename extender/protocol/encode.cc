#include "extender/protocol/encode.h"

#include <charconv>
#include <cstring>

#include "extender/protocol/json_writer.h"

namespace gangplank::extender {
namespace {

// The replies below are flat and hot (hundreds of entries per call), so they are appended directly
// instead of through JsonWriter's nesting bookkeeping; the bytes are the same.
void AppendInt(std::string& out, std::int64_t value) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
}

void WriteFailedNodes(JsonWriter& w, std::string_view key, const std::optional<FailedNodesMap>& map) {
  w.Key(key);
  if (!map) {
    w.Null();
    return;
  }
  w.Raw("{");  // Keeps the writer's comma state; the entries follow as raw text.
  std::string& out = w.Output();
  bool first = true;
  for (const FailedNodesMap::Entry* entry : map->Sorted()) {  // Go writes map keys sorted.
    if (!first) out += ',';
    first = false;
    AppendGoJsonString(out, entry->first);
    out += ':';
    AppendGoJsonString(out, entry->second);
  }
  out += '}';
}

}  // namespace

std::string EncodeFilterResult(const ExtenderFilterResult& r) {
  std::string out;
  size_t estimate = 96;
  if (r.nodes) for (auto n : *r.nodes) estimate += n.size() + 1;
  if (r.node_names) estimate += r.node_names->size() * 24;
  for (const auto* map : {&r.failed_nodes, &r.failed_and_unresolvable_nodes}) {
    if (*map) estimate += (*map)->encoded_size_hint();
  }
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
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string_view host = list[i].host;
    if (host.size() <= 128 && IsPlainJsonString(host)) {
      // The common case in one append: node names need no escaping.
      char entry[192];
      char* p = entry;
      auto put = [&p](std::string_view s) { std::memcpy(p, s.data(), s.size()), p += s.size(); };
      put(i == 0 ? "{\"Host\":\"" : ",{\"Host\":\"");
      put(host);
      put("\",\"Score\":");
      p = std::to_chars(p, entry + sizeof entry - 1, list[i].score).ptr;
      *p++ = '}';
      out.append(entry, static_cast<size_t>(p - entry));
      continue;
    }
    out += i == 0 ? "{\"Host\":" : ",{\"Host\":";
    AppendGoJsonString(out, host);
    out += ",\"Score\":";
    AppendInt(out, list[i].score);
    out += '}';
  }
  out += ']';
  return out;
}

std::string EncodePreemptionResult(const ExtenderPreemptionResult& r) {
  std::string out;
  size_t estimate = 32;
  for (const auto& [node, victims] : r.node_to_meta_victims) estimate += node.size() + 40 + victims.uids.size() * 48;
  out.reserve(estimate);
  out += "{\"NodeNameToMetaVictims\":{";
  bool first_node = true;
  for (const auto& [node, victims] : r.node_to_meta_victims) {
    if (!first_node) out += ',';
    first_node = false;
    AppendGoJsonString(out, node);
    out += ":{\"Pods\":[";
    for (size_t i = 0; i < victims.uids.size(); ++i) {
      out += i == 0 ? "{\"UID\":" : ",{\"UID\":";
      AppendGoJsonString(out, victims.uids[i]);
      out += '}';
    }
    out += "],\"NumPDBViolations\":";
    AppendInt(out, victims.num_pdb_violations);
    out += '}';
  }
  out += "}}";
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
