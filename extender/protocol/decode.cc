#include "extender/protocol/decode.h"

#include <simdjson.h>

#include <cctype>
#include <optional>

#include "cache/objects/decode_error.h"
#include "extender/protocol/node_names_scanner.h"
#include "extender/protocol/strict_json_cursor.h"
#include "extender/protocol/victims_scanner.h"

namespace gangplank::extender {

namespace sj = simdjson::ondemand;

struct RequestDecoder::Parsers {
  sj::parser body;
  sj::parser item;  // Second parser: reads a node item's name while `body` holds the whole request.
};

namespace {

std::string Describe(simdjson::error_code e) {
  switch (e) {
    case simdjson::EMPTY: return "empty body: expected a JSON object";
    case simdjson::TAPE_ERROR: return "malformed JSON";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return "truncated JSON: an object or array is not closed";
    case simdjson::UNCLOSED_STRING: return "truncated JSON: a string is not closed";
    case simdjson::UTF8_ERROR: return "invalid UTF-8";
    case simdjson::UNESCAPED_CHARS: return "control character inside a string";
    case simdjson::STRING_ERROR: return "invalid string escape";
    case simdjson::NUMBER_ERROR: return "malformed number";
    case simdjson::NUMBER_OUT_OF_RANGE: return "number out of range";
    case simdjson::T_ATOM_ERROR: case simdjson::F_ATOM_ERROR: case simdjson::N_ATOM_ERROR:
      return "malformed literal (true, false or null)";
    case simdjson::TRAILING_CONTENT: return "unexpected content after the JSON value";
    case simdjson::DEPTH_ERROR: return "JSON nested too deeply";
    case simdjson::CAPACITY: return "body too large to parse";
    default: return std::string("invalid JSON (") + simdjson::error_message(e) + ")";
  }
}

[[noreturn]] void Fail(simdjson::error_code e) { throw cache::DecodeError("", Describe(e)); }

template <typename T>
T Take(simdjson::simdjson_result<T>&& result) {
  T value;
  if (auto e = std::move(result).get(value)) Fail(e);
  return value;
}

const char* TypeName(sj::json_type t) {
  switch (t) {
    case sj::json_type::array: return "an array";
    case sj::json_type::object: return "an object";
    case sj::json_type::number: return "a number";
    case sj::json_type::string: return "a string";
    case sj::json_type::boolean: return "a boolean";
    case sj::json_type::null: return "null";
  }
  return "an unknown value";
}

sj::json_type TypeOf(sj::value& v) { return Take(v.type()); }

[[noreturn]] void WrongType(const char* expected, sj::json_type got) {
  throw cache::DecodeError("", std::string("expected ") + expected + ", got " + TypeName(got));
}

// True (and the literal consumed) when v is null.
bool IsNull(sj::value& v) {
  if (TypeOf(v) != sj::json_type::null) return false;
  if (!Take(v.is_null())) throw cache::DecodeError("", "malformed literal (expected null)");
  return true;
}

sj::object ObjectOf(sj::value& v) {
  const auto t = TypeOf(v);
  if (t != sj::json_type::object) WrongType("an object", t);
  return Take(v.get_object());
}

sj::array ArrayOf(sj::value& v) {
  const auto t = TypeOf(v);
  if (t != sj::json_type::array) WrongType("an array", t);
  return Take(v.get_array());
}

// The text of a JSON string starting at `quoted` (its opening quote excluded) when it holds nothing to
// unescape or reject (no backslash, no control character): then it can be viewed where it stands
// instead of being copied into the parser's buffer. Node names, UIDs and keys always qualify.
std::optional<std::string_view> PlainText(const char* quoted) {
  const char* end = quoted;
  while (*end != '"' && *end != '\\' && static_cast<unsigned char>(*end) >= 0x20) ++end;  // Padded: ends.
  if (*end != '"') return std::nullopt;
  return std::string_view(quoted, static_cast<size_t>(end - quoted));
}

// A string as a view into the request body, or into the parser's buffer when it had escapes: valid
// while the body is unchanged and until the parser parses again.
std::string_view StringViewOf(sj::value& v) {
  const auto t = TypeOf(v);
  if (t != sj::json_type::string) WrongType("a string", t);
  if (const auto plain = PlainText(v.raw_json_token().data() + 1)) {
    Take(v.get_raw_json_string());  // Consumes the value without copying it.
    return *plain;
  }
  return Take(v.get_string());
}

std::string StringOf(sj::value& v) { return std::string(StringViewOf(v)); }

// A string, with null read as "" (Go leaves the field empty).
std::string NullableString(sj::value& v) { return IsNull(v) ? std::string() : StringOf(v); }

std::int64_t Int64Of(sj::value& v) {
  const auto t = TypeOf(v);
  if (t != sj::json_type::number) WrongType("an integer", t);
  return Take(v.get_int64());
}

bool BoolOf(sj::value& v) {
  const auto t = TypeOf(v);
  if (t != sj::json_type::boolean) WrongType("a boolean", t);
  return Take(v.get_bool());
}

// Calls f(key, value) for each field; errors inside get the key prepended to their path.
template <typename F>
void ForEachField(sj::object object, F&& f) {
  for (auto field_result : object) {
    sj::field field = Take(std::move(field_result));
    const auto plain = PlainText(field.key().raw());
    const std::string_view key = plain ? *plain : Take(field.unescaped_key());
    sj::value value = field.value();
    try {
      f(key, value);
    } catch (const cache::DecodeError& e) {
      throw e.Within(std::string(key));
    }
  }
}

// Fields of an object, or nothing for null.
template <typename F>
void ForEachFieldOrNull(sj::value& v, F&& f) {
  if (IsNull(v)) return;
  ForEachField(ObjectOf(v), std::forward<F>(f));
}

template <typename F>
void ForEachElementOrNull(sj::value& v, F&& f) {
  if (IsNull(v)) return;
  size_t index = 0;
  for (auto element_result : ArrayOf(v)) {
    sj::value element = Take(std::move(element_result));
    try {
      f(element);
    } catch (const cache::DecodeError& e) {
      throw e.Within("[" + std::to_string(index) + "]");
    }
    ++index;
  }
}

std::map<std::string, std::string> StringMapOf(sj::value& v) {
  std::map<std::string, std::string> out;
  ForEachFieldOrNull(v, [&](std::string_view key, sj::value& value) {
    out.insert_or_assign(std::string(key), NullableString(value));
  });
  return out;
}

// A quantity is a JSON string in everything Go writes; Go also accepts a bare number, so do we.
std::string QuantityText(sj::value& v) {
  const auto t = TypeOf(v);
  if (t == sj::json_type::string) return std::string(Take(v.get_string()));
  if (t != sj::json_type::number) WrongType("a quantity string", t);
  std::string_view token = v.raw_json_token();
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.remove_suffix(1);
  return std::string(token);
}

cache::ResourceList ResourceListOf(sj::value& v) {
  cache::ResourceList out;
  ForEachFieldOrNull(v, [&](std::string_view key, sj::value& value) {
    if (IsNull(value)) return;
    out.emplace_back(std::string(key), QuantityText(value));
  });
  return out;
}

// A resources object (a container's or the pod's): requests and limits.
void ResourcesOf(sj::value& v, cache::ContainerResources& c) {
  ForEachFieldOrNull(v, [&](std::string_view rkey, sj::value& list) {
    if (rkey == "requests") c.requests = ResourceListOf(list);
    else if (rkey == "limits") c.limits = ResourceListOf(list);
  });
}

std::vector<cache::ContainerResources> ContainersOf(sj::value& v) {
  std::vector<cache::ContainerResources> out;
  ForEachElementOrNull(v, [&](sj::value& container) {
    cache::ContainerResources& c = out.emplace_back();
    ForEachField(ObjectOf(container), [&](std::string_view key, sj::value& value) {
      if (key == "resources") ResourcesOf(value, c);
      else if (key == "restartPolicy") c.sidecar = NullableString(value) == "Always";
    });
  });
  return out;
}

std::vector<cache::PodClaimRef> ResourceClaimsOf(sj::value& v) {
  std::vector<cache::PodClaimRef> out;
  ForEachElementOrNull(v, [&](sj::value& element) {
    cache::PodClaimRef& c = out.emplace_back();
    ForEachField(ObjectOf(element), [&](std::string_view key, sj::value& value) {
      if (key == "name") c.name = NullableString(value);
      else if (key == "resourceClaimName") c.claim_name = NullableString(value);
      else if (key == "resourceClaimTemplateName") c.template_name = NullableString(value);
    });
  });
  return out;
}

std::vector<engine::Toleration> TolerationsOf(sj::value& v) {
  std::vector<engine::Toleration> out;
  ForEachElementOrNull(v, [&](sj::value& element) {
    engine::Toleration& t = out.emplace_back();
    ForEachField(ObjectOf(element), [&](std::string_view key, sj::value& value) {
      if (key == "key") t.key = NullableString(value);
      else if (key == "operator") t.op = NullableString(value);
      else if (key == "value") t.value = NullableString(value);
      else if (key == "effect") t.effect = NullableString(value);
    });
    if (t.op.empty()) t.op = "Equal";  // The API's default.
  });
  return out;
}

std::vector<engine::Taint> TaintsOf(sj::value& v) {
  std::vector<engine::Taint> out;
  ForEachElementOrNull(v, [&](sj::value& element) {
    engine::Taint& t = out.emplace_back();
    ForEachField(ObjectOf(element), [&](std::string_view key, sj::value& value) {
      if (key == "key") t.key = NullableString(value);
      else if (key == "value") t.value = NullableString(value);
      else if (key == "effect") t.effect = NullableString(value);
    });
  });
  return out;
}

void PodMetadata(sj::value& v, cache::PodInfo& pod) {
  ForEachFieldOrNull(v, [&](std::string_view key, sj::value& value) {
    if (key == "name") pod.name = NullableString(value);
    else if (key == "namespace") pod.namespace_ = NullableString(value);
    else if (key == "uid") pod.uid = NullableString(value);
    else if (key == "labels") pod.labels = StringMapOf(value);
    else if (key == "annotations") pod.annotations = StringMapOf(value);
    else if (key == "deletionTimestamp") pod.deleting = !IsNull(value);
  });
}

void PodSpec(sj::value& v, cache::PodInfo& pod) {
  ForEachFieldOrNull(v, [&](std::string_view key, sj::value& value) {
    if (key == "nodeName") pod.node_name = NullableString(value);
    else if (key == "schedulerName") pod.scheduler_name = NullableString(value);
    else if (key == "priority") pod.priority = IsNull(value) ? 0 : static_cast<std::int32_t>(Int64Of(value));
    else if (key == "nodeSelector") pod.node_selector = StringMapOf(value);
    else if (key == "tolerations") pod.tolerations = TolerationsOf(value);
    else if (key == "containers") pod.containers = ContainersOf(value);
    else if (key == "initContainers") pod.init_containers = ContainersOf(value);
    else if (key == "resources") ResourcesOf(value, pod.pod_resources.emplace());
    else if (key == "overhead") pod.overhead = ResourceListOf(value);
    else if (key == "resourceClaims") pod.resource_claims = ResourceClaimsOf(value);
    else if (key == "schedulingGroup") {
      ForEachFieldOrNull(value, [&](std::string_view k, sj::value& f) {
        if (k == "podGroupName") pod.pod_group_name = NullableString(f);
      });
    }
  });
}

void PodStatus(sj::value& v, cache::PodInfo& pod) {
  ForEachFieldOrNull(v, [&](std::string_view key, sj::value& value) {
    if (key == "phase") {
      pod.phase = NullableString(value);
    } else if (key == "nominatedNodeName") {
      pod.nominated_node_name = NullableString(value);
    } else if (key == "resourceClaimStatuses") {
      ForEachElementOrNull(value, [&](sj::value& element) {
        std::string name, claim;
        ForEachField(ObjectOf(element), [&](std::string_view k, sj::value& f) {
          if (k == "name") name = NullableString(f);
          else if (k == "resourceClaimName") claim = NullableString(f);
        });
        pod.claim_statuses.emplace_back(std::move(name), std::move(claim));
      });
    } else if (key == "extendedResourceClaimStatus") {
      ForEachFieldOrNull(value, [&](std::string_view k, sj::value& f) {
        if (k == "resourceClaimName") pod.extended_resource_claim = NullableString(f);
      });
    }
  });
}

cache::PodInfo PodOf(sj::value& v) {
  cache::PodInfo pod;
  ForEachField(ObjectOf(v), [&](std::string_view key, sj::value& value) {
    if (key == "metadata") PodMetadata(value, pod);
    else if (key == "spec") PodSpec(value, pod);
    else if (key == "status") PodStatus(value, pod);
  });
  return pod;
}

cache::NodeInfo NodeOf(sj::value& v) {
  cache::NodeInfo node;
  ForEachField(ObjectOf(v), [&](std::string_view key, sj::value& value) {
    if (key == "metadata") {
      ForEachFieldOrNull(value, [&](std::string_view mkey, sj::value& m) {
        if (mkey == "name") node.name = NullableString(m);
        else if (mkey == "labels") node.labels = StringMapOf(m);
      });
    } else if (key == "spec") {
      ForEachFieldOrNull(value, [&](std::string_view skey, sj::value& s) {
        if (skey == "unschedulable") node.unschedulable = !IsNull(s) && BoolOf(s);
        else if (skey == "taints") node.taints = TaintsOf(s);
      });
    } else if (key == "status") {
      ForEachFieldOrNull(value, [&](std::string_view skey, sj::value& s) {
        if (skey == "allocatable") node.allocatable = ResourceListOf(s);
      });
    }
  });
  return node;
}

std::string_view TrimTrailingSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A NodeList item: its metadata.name (read with the second parser) and its JSON text.
NodeItem NodeItemOf(sj::value& v, sj::parser& item_parser, const char* body_end) {
  NodeItem item;
  sj::object object = ObjectOf(v);
  item.raw_json = TrimTrailingSpace(Take(object.raw_json()));
  // The text is followed by the rest of the (padded) body, so simdjson may read past it safely.
  const size_t capacity = static_cast<size_t>(body_end - item.raw_json.data()) + simdjson::SIMDJSON_PADDING;
  sj::document doc = Take(item_parser.iterate(item.raw_json.data(), item.raw_json.size(), capacity));
  sj::object root = Take(doc.get_object());
  bool has_name = false;
  for (auto field_result : root) {
    sj::field field = Take(std::move(field_result));
    if (Take(field.unescaped_key()) != "metadata") continue;
    sj::value metadata = field.value();
    try {
      ForEachFieldOrNull(metadata, [&](std::string_view key, sj::value& value) {
        if (key == "name") {
          item.name = StringOf(value);
          has_name = true;
        }
      });
    } catch (const cache::DecodeError& e) {
      throw e.Within("metadata");
    }
    break;
  }
  if (!has_name || item.name.empty()) throw cache::DecodeError("metadata.name", "missing");
  return item;
}

std::vector<NodeItem> NodeListOf(sj::value& v, sj::parser& item_parser, const char* body_end) {
  std::vector<NodeItem> items;
  ForEachField(ObjectOf(v), [&](std::string_view key, sj::value& value) {
    if (key != "items") return;
    ForEachElementOrNull(value, [&](sj::value& element) {
      items.push_back(NodeItemOf(element, item_parser, body_end));
    });
  });
  return items;
}

// Views into the parser's string buffer (see ExtenderArgs::node_names): no copy per name.
std::vector<std::string_view> StringViewArrayOf(sj::value& v) {
  std::vector<std::string_view> out;
  ForEachElementOrNull(v, [&](sj::value& element) { out.push_back(StringViewOf(element)); });
  return out;
}

// A node's MetaVictims, closed into the map under `node`.
void AddMetaVictims(sj::value& v, std::string_view node, NodeVictimsMap& map) {
  std::int64_t num_pdb_violations = 0;
  ForEachFieldOrNull(v, [&](std::string_view key, sj::value& value) {
    if (KeyIs(key, "Pods")) {
      ForEachElementOrNull(value, [&](sj::value& element) {
        std::string_view uid;
        ForEachFieldOrNull(element, [&](std::string_view mkey, sj::value& m) {
          if (KeyIs(mkey, "UID")) uid = IsNull(m) ? std::string_view() : StringViewOf(m);
        });
        if (uid.empty()) throw cache::DecodeError("UID", "missing");
        map.AddUid(uid);
      });
    } else if (KeyIs(key, "NumPDBViolations")) {
      num_pdb_violations = IsNull(value) ? 0 : Int64Of(value);
    }
  });
  map.CloseNode(node, num_pdb_violations);
}

NodeVictimsMap NodeVictimsOf(sj::value& v) {
  NodeVictimsMap map;
  ForEachField(ObjectOf(v), [&](std::string_view node, sj::value& victims) { AddMetaVictims(victims, node, map); });
  return map;
}

// The value's text from its first byte to the end of the body (NUL-terminated), for the scanners.
const char* TextOf(sj::value& v) { return v.raw_json_token().data(); }

Victims VictimsOf(sj::value& v) {
  Victims victims;
  ForEachFieldOrNull(v, [&](std::string_view key, sj::value& value) {
    if (KeyIs(key, "Pods")) {
      ForEachElementOrNull(value, [&](sj::value& element) { victims.pods.push_back(PodOf(element)); });
    } else if (KeyIs(key, "NumPDBViolations")) {
      victims.num_pdb_violations = IsNull(value) ? 0 : Int64Of(value);
    }
  });
  return victims;
}

// Opens the body as a document whose root must be an object, with the padding simdjson needs.
void OpenDocument(sj::parser& parser, std::string& body, sj::document& doc) {
  if (body.size() > kMaxDecodableBytes) throw cache::DecodeError("", "body too large to parse");
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  doc = Take(parser.iterate(body.data(), body.size(), body.capacity()));
  const auto t = Take(doc.type());
  if (t != sj::json_type::object) WrongType("a JSON object", t);
}

template <typename F>
void ForEachRootField(sj::parser& parser, std::string& body, F&& f) {
  sj::document doc;
  OpenDocument(parser, body, doc);
  ForEachField(Take(doc.get_object()), std::forward<F>(f));
}

}  // namespace

RequestDecoder::RequestDecoder(FastPaths fast_paths)
    : parsers_(std::make_unique<Parsers>()), fast_paths_(fast_paths == FastPaths::kOn) {}
RequestDecoder::~RequestDecoder() = default;

ExtenderArgs RequestDecoder::DecodeExtenderArgs(std::string& body) {
  ExtenderArgs args;
  bool has_pod = false;
  ForEachRootField(parsers_->body, body, [&](std::string_view key, sj::value& value) {
    if (KeyIs(key, "Pod")) {
      if (IsNull(value)) throw cache::DecodeError("", "is null; kube-scheduler always sends the pod");
      args.pod = PodOf(value);
      has_pod = true;
    } else if (KeyIs(key, "Nodes")) {
      if (IsNull(value)) args.nodes.reset();
      else args.nodes = NodeListOf(value, parsers_->item, body.data() + body.size());
    } else if (KeyIs(key, "NodeNames")) {
      if (IsNull(value)) {
        args.node_names.reset();
      } else if (auto scanned = fast_paths_ ? ScanNodeNames(TextOf(value)) : std::nullopt) {
        Take(ArrayOf(value).raw_json());  // Scanned: simdjson only steps over it.
        args.node_names = std::move(scanned->names);
        args.names_plain = scanned->plain;
      } else {
        args.node_names = StringViewArrayOf(value);
        args.names_plain = false;
      }
    }
  });
  if (!has_pod) throw cache::DecodeError("Pod", "missing");
  return args;
}

ExtenderPreemptionArgs RequestDecoder::DecodePreemptionArgs(std::string& body) {
  ExtenderPreemptionArgs args;
  bool has_pod = false;
  ForEachRootField(parsers_->body, body, [&](std::string_view key, sj::value& value) {
    if (KeyIs(key, "Pod")) {
      if (IsNull(value)) throw cache::DecodeError("", "is null; kube-scheduler always sends the pod");
      args.pod = PodOf(value);
      has_pod = true;
    } else if (KeyIs(key, "NodeNameToVictims")) {
      if (IsNull(value)) return args.node_to_victims.reset();
      auto& map = args.node_to_victims.emplace();
      ForEachField(ObjectOf(value), [&](std::string_view node, sj::value& victims) {
        map.insert_or_assign(map.end(), std::string(node), VictimsOf(victims));  // Go sends keys sorted.
      });
    } else if (KeyIs(key, "NodeNameToMetaVictims")) {
      if (IsNull(value)) return args.node_to_meta_victims.reset();
      if (auto scanned = fast_paths_ ? ScanNodeVictims(TextOf(value)) : std::nullopt) {
        Take(ObjectOf(value).raw_json());  // Scanned: simdjson only steps over it.
        args.node_to_meta_victims = std::move(*scanned);
      } else {
        args.node_to_meta_victims = NodeVictimsOf(value);
      }
    }
  });
  if (!has_pod) throw cache::DecodeError("Pod", "missing");
  return args;
}

ExtenderBindingArgs RequestDecoder::DecodeBindingArgs(std::string& body) {
  ExtenderBindingArgs args;
  ForEachRootField(parsers_->body, body, [&](std::string_view key, sj::value& value) {
    if (KeyIs(key, "PodName")) args.pod_name = NullableString(value);
    else if (KeyIs(key, "PodNamespace")) args.pod_namespace = NullableString(value);
    else if (KeyIs(key, "PodUID")) args.pod_uid = NullableString(value);
    else if (KeyIs(key, "Node")) args.node = NullableString(value);
  });
  if (args.pod_name.empty()) throw cache::DecodeError("PodName", "missing");
  if (args.node.empty()) throw cache::DecodeError("Node", "missing");
  return args;
}

cache::PodInfo RequestDecoder::DecodePod(std::string& json) {
  sj::document doc;
  OpenDocument(parsers_->body, json, doc);
  sj::value root = Take(doc.get_value());
  return PodOf(root);
}

cache::NodeInfo RequestDecoder::DecodeNode(std::string& json) {
  sj::document doc;
  OpenDocument(parsers_->body, json, doc);
  sj::value root = Take(doc.get_value());
  return NodeOf(root);
}

std::vector<std::string_view> ExtenderArgs::CandidateNames() const {
  std::vector<std::string_view> names;
  if (node_names) {
    names = *node_names;
  } else if (nodes) {
    names.reserve(nodes->size());
    for (const auto& n : *nodes) names.push_back(n.name);
  }
  return names;
}

NodeVictimsMap ExtenderPreemptionArgs::CandidateVictims() const {
  if (node_to_meta_victims) return *node_to_meta_victims;
  NodeVictimsMap out;
  if (!node_to_victims) return out;
  for (const auto& [node, victims] : *node_to_victims) {
    for (const auto& pod : victims.pods) out.AddUid(pod.uid);
    out.CloseNode(node, victims.num_pdb_violations);
  }
  return out;
}

}  // namespace gangplank::extender
