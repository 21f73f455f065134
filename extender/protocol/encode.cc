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

// Writes many small pieces into `out` through a raw pointer: room is made once for the whole list
// (an upper bound) and the string is trimmed at the end, instead of a capacity check per piece.
class BulkAppender {
 public:
  BulkAppender(std::string& out, size_t max_bytes) : out_(out), start_(out.size()) {
    out_.resize(start_ + max_bytes);
    p_ = out_.data() + start_;
  }
  ~BulkAppender() { out_.resize(static_cast<size_t>(p_ - out_.data())); }
  BulkAppender(const BulkAppender&) = delete;
  BulkAppender& operator=(const BulkAppender&) = delete;

  void Put(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void Put(char c) { *p_++ = c; }
  // A string that IsPlainJsonString: quoted, nothing to escape.
  void PutPlainString(std::string_view s) {
    *p_++ = '"';
    Put(s);
    *p_++ = '"';
  }
  void PutInt(std::int64_t value) { p_ = std::to_chars(p_, p_ + 20, value).ptr; }
  // Any string, escaped as Go would; room for 6 bytes per input byte plus the quotes must be reserved.
  void PutString(std::string_view s) {
    std::string escaped;
    AppendGoJsonString(escaped, s);
    Put(escaped);
  }

 private:
  std::string& out_;
  size_t start_;
  char* p_;
};

template <typename Range, typename Get>
bool AllPlain(const Range& range, Get get) {
  for (const auto& item : range) {
    if (!IsPlainJsonString(get(item))) return false;
  }
  return true;
}

// Each distinct reason escaped once, then every entry copied into place: hundreds of rejected nodes
// of one call share a handful of reasons.
void WriteFailedNodes(JsonWriter& w, std::string_view key, const std::optional<FailedNodesMap>& map,
                      bool names_plain) {
  w.Key(key);
  if (!map) {
    w.Null();
    return;
  }
  std::vector<std::string> reasons;
  reasons.reserve(map->reasons().size());
  for (const std::string& reason : map->reasons()) AppendGoJsonString(reasons.emplace_back(), reason);
  const std::vector<const FailedNodesMap::Entry*> sorted = map->Sorted();  // Go writes map keys sorted.
  bool plain = true;
  size_t bytes = 2, name_bytes = 0;
  for (const FailedNodesMap::Entry* entry : sorted) {
    plain = plain && (names_plain || IsPlainJsonString(entry->first));
    name_bytes += entry->first.size();
    bytes += entry->first.size() + 4 + reasons[entry->reason].size();
  }
  if (!plain) bytes += 5 * name_bytes;  // Go's escaping takes at most six bytes per byte.
  w.Raw("{");  // Keeps the writer's comma state; the entries follow as raw text.
  BulkAppender a(w.Output(), bytes);
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0) a.Put(',');
    if (plain) a.PutPlainString(sorted[i]->first);
    else a.PutString(sorted[i]->first);
    a.Put(':');
    a.Put(reasons[sorted[i]->reason]);
  }
  a.Put('}');
}

bool AllPlainVictims(const NodeVictimsMap& map) {
  for (const auto& [node, victims] : map) {
    if (!IsPlainJsonString(node) || !AllPlain(victims.uids, [](std::string_view uid) { return uid; })) return false;
  }
  return true;
}

// The preemption reply when no name or UID needs escaping: written straight into place.
std::string EncodePlainVictims(const NodeVictimsMap& map) {
  constexpr std::string_view kHead = "{\"NodeNameToMetaVictims\":{", kPods = ":{\"Pods\":[",
                             kUid = "{\"UID\":", kPdb = "],\"NumPDBViolations\":";
  size_t bytes = kHead.size() + 2;
  for (const auto& [node, victims] : map) {
    bytes += node.size() + 3 + kPods.size() + kPdb.size() + 21;  // Quotes, comma, closing brace, 20-digit count.
    for (std::string_view uid : victims.uids) bytes += kUid.size() + uid.size() + 4;
  }
  std::string out;
  {
    BulkAppender a(out, bytes);
    a.Put(kHead);
    bool first_node = true;
    for (const auto& [node, victims] : map) {
      if (!first_node) a.Put(',');
      first_node = false;
      a.PutPlainString(node);
      a.Put(kPods);
      for (size_t i = 0; i < victims.uids.size(); ++i) {
        if (i > 0) a.Put(',');
        a.Put(kUid);
        a.PutPlainString(victims.uids[i]);
        a.Put('}');
      }
      a.Put(kPdb);
      a.PutInt(victims.num_pdb_violations);
      a.Put('}');
    }
    a.Put("}}");
  }  // Trimmed to what was written.
  return out;
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
  if (r.node_names && (r.names_plain || AllPlain(*r.node_names, [](std::string_view n) { return n; }))) {
    w.Raw("[");  // The names follow directly: hundreds per reply.
    size_t bytes = 1;
    for (std::string_view name : *r.node_names) bytes += name.size() + 3;
    BulkAppender a(w.Output(), bytes);
    for (size_t i = 0; i < r.node_names->size(); ++i) {
      if (i > 0) a.Put(',');
      a.PutPlainString((*r.node_names)[i]);
    }
    a.Put(']');
  } else if (r.node_names) {
    w.BeginArray();
    for (const auto& name : *r.node_names) w.String(name);
    w.EndArray();
  } else {
    w.Null();
  }
  WriteFailedNodes(w, "FailedNodes", r.failed_nodes, r.names_plain);
  WriteFailedNodes(w, "FailedAndUnresolvableNodes", r.failed_and_unresolvable_nodes, r.names_plain);
  w.Key("Error").String(r.error);
  w.EndObject();
  return out;
}

std::string EncodeHostPriorityList(const std::vector<HostPriority>& list, bool hosts_plain) {
  std::string out;
  if (hosts_plain || AllPlain(list, [](const HostPriority& h) { return h.host; })) {
    // The common case: node names need no escaping, so entries are written straight into place.
    size_t bytes = 2;
    for (const HostPriority& h : list) bytes += h.host.size() + 42;  // Punctuation and a 20-digit score.
    {
      BulkAppender a(out, bytes);
      a.Put('[');
      for (size_t i = 0; i < list.size(); ++i) {
        a.Put(i == 0 ? std::string_view("{\"Host\":") : std::string_view(",{\"Host\":"));
        a.PutPlainString(list[i].host);
        a.Put(",\"Score\":");
        a.PutInt(list[i].score);
        a.Put('}');
      }
      a.Put(']');
    }  // Trimmed to what was written.
    return out;
  }
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    out += i == 0 ? "{\"Host\":" : ",{\"Host\":";
    AppendGoJsonString(out, list[i].host);
    out += ",\"Score\":";
    AppendInt(out, list[i].score);
    out += '}';
  }
  out += ']';
  return out;
}

std::string EncodePreemptionResult(const ExtenderPreemptionResult& r) {
  const NodeVictimsMap& map = r.node_to_meta_victims;
  if (map.known_plain() || AllPlainVictims(map)) return EncodePlainVictims(map);
  std::string out;
  size_t estimate = 32;
  for (const auto& [node, victims] : map) estimate += node.size() + 40 + victims.uids.size() * 48;
  out.reserve(estimate);
  out += "{\"NodeNameToMetaVictims\":{";
  bool first_node = true;
  for (const auto& [node, victims] : map) {
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
