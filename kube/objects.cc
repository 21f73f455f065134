#include "kube/objects.h"

#include <nlohmann/json.hpp>

#include "base/pod_requests.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gangplank::kube {
namespace {

namespace od = simdjson::ondemand;

std::string_view str(od::value v) {
  if (v.is_null()) return {};
  return v.get_string();
}

int64_t Int64Of(od::value v) {
  if (v.is_null()) return 0;
  return v.get_int64();
}

bool BoolOf(od::value v) {
  if (v.is_null()) return false;
  return v.get_bool();
}

// Annotations kubectl writes can be tens of KB and nothing here reads them.
bool SkipAnnotation(std::string_view key) { return key == "kubectl.kubernetes.io/last-applied-configuration"; }

// Which annotations an object keeps: all but kubectl's copy, or (a pod's: its owner's to write, up to 256 KiB
// of them on every pod) only gangplank's own, the only ones anything here reads, so no tenant grows the
// caches with annotations of its own.
enum class KeptAnnotations { kNone, kAllButKubectls, kGangplanks };

bool Kept(KeptAnnotations kept, std::string_view key) {
  switch (kept) {
    case KeptAnnotations::kNone: return true;
    case KeptAnnotations::kAllButKubectls: return !SkipAnnotation(key);
    case KeptAnnotations::kGangplanks: return key.rfind("gangplank.io/", 0) == 0;
  }
  return true;
}

void DecodePairs(od::value v, StringPairs& out, KeptAnnotations kept) {
  if (v.is_null()) return;
  StringPairs scratch;
  scratch.Reserve(1024);
  std::string k;
  k.reserve(256);
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    if (!Kept(kept, key)) continue;
    k.assign(key);  // the key view dies when the value is read
    scratch.Add(k, str(field.value()));
  }
  out = scratch.ExactCopy();
}

void DecodeOwnerRefs(od::value v, std::vector<OwnerReference>& out) {
  if (v.is_null()) return;
  for (auto item : v.get_array()) {
    OwnerReference ref;
    for (auto field : item.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "apiVersion") ref.api_version = str(field.value());
      else if (key == "kind") ref.kind = str(field.value());
      else if (key == "name") ref.name = str(field.value());
      else if (key == "uid") ref.uid = str(field.value());
      else if (key == "controller") ref.controller = BoolOf(field.value());
    }
    out.push_back(std::move(ref));
  }
  out.shrink_to_fit();
}

void DecodeConditions(od::value v, StringPairs& out) {
  if (v.is_null()) return;
  StringPairs scratch;
  scratch.Reserve(512);
  std::string type, status;
  type.reserve(64);
  status.reserve(16);
  for (auto item : v.get_array()) {
    type.clear();
    status.clear();
    for (auto field : item.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "type") type = str(field.value());
      else if (key == "status") status = str(field.value());
    }
    scratch.Add(type, status);
  }
  out = scratch.ExactCopy();
}

std::optional<int64_t> QuantityOrThrow(std::string_view text) {
  auto q = ParseQuantityMilli(text);
  if (!q) throw DecodeError("bad quantity '" + std::string(text) + "'");
  return q;
}

void DecodeAmounts(od::value v, std::vector<ResourceAmount>& out) {
  if (v.is_null()) return;
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    od::value val = field.value();
    int64_t milli = 0;
    if (val.type() == od::json_type::number) {
      milli = static_cast<int64_t>(std::llround(double(val.get_double()) * 1000));
    } else {
      milli = *QuantityOrThrow(str(val));
    }
    out.push_back({std::string(key), milli});
  }
}

base::Amounts AmountsOf(od::value v) {
  std::vector<ResourceAmount> amounts;
  DecodeAmounts(v, amounts);
  base::Amounts out;
  out.reserve(amounts.size());
  for (ResourceAmount& a : amounts) out.emplace_back(std::move(a.name), a.milli);
  return out;
}

// A resources object: requests and limits.
void DecodeResources(od::value v, base::ContainerAmounts& out) {
  if (v.is_null()) return;
  for (auto rf : v.get_object()) {
    const std::string_view kind = rf.unescaped_key();
    if (kind == "requests") out.requests = AmountsOf(rf.value());
    else if (kind == "limits") out.limits = AmountsOf(rf.value());
  }
}

// containers[] or initContainers[]: each one's resources, and whether it is a sidecar.
void DecodeContainers(od::value v, std::vector<base::ContainerAmounts>& out) {
  if (v.is_null()) return;
  for (auto container : v.get_array()) {
    base::ContainerAmounts& c = out.emplace_back();
    for (auto field : container.get_object()) {
      const std::string_view key = field.unescaped_key();
      if (key == "resources") DecodeResources(field.value(), c);
      else if (key == "restartPolicy") c.sidecar = str(field.value()) == "Always";
    }
  }
}

void DecodeResourceClaims(od::value v, PodClaims& out) {
  if (v.is_null()) return;
  for (auto item : v.get_array()) {
    PodResourceClaim& c = out.claims.emplace_back();
    for (auto field : item.get_object()) {
      const std::string_view key = field.unescaped_key();
      if (key == "name") c.name = str(field.value());
      else if (key == "resourceClaimName") c.claim_name = str(field.value());
      else if (key == "resourceClaimTemplateName") c.template_name = str(field.value());
    }
  }
}

void DecodeClaimStatuses(od::value v, PodClaims& out) {
  if (v.is_null()) return;
  for (auto item : v.get_array()) {
    std::string name, claim;
    for (auto field : item.get_object()) {
      const std::string_view key = field.unescaped_key();
      if (key == "name") name = str(field.value());
      else if (key == "resourceClaimName") claim = str(field.value());
    }
    out.statuses.emplace_back(std::move(name), std::move(claim));
  }
}

void DecodeExtendedClaim(od::value v, PodClaims& out) {
  if (v.is_null()) return;
  for (auto field : v.get_object()) {
    if (std::string_view(field.unescaped_key()) == "resourceClaimName") out.extended_resource_claim = str(field.value());
  }
}

void DecodeTolerations(od::value v, std::vector<Toleration>& out) {
  if (v.is_null()) return;
  for (auto item : v.get_array()) {
    Toleration t;
    for (auto field : item.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "key") t.key = str(field.value());
      else if (key == "operator") t.op = str(field.value());
      else if (key == "value") t.value = str(field.value());
      else if (key == "effect") t.effect = str(field.value());
    }
    out.push_back(std::move(t));
  }
}

void DecodeSchedulingGroup(od::value v, std::string& pod_group_name) {
  if (v.is_null()) return;
  for (auto field : v.get_object()) {
    if (std::string_view(field.unescaped_key()) == "podGroupName") pod_group_name = str(field.value());
  }
}

// Whether spec.affinity has required node affinity terms.
bool HasRequiredNodeAffinity(od::value v) {
  bool required = false;
  if (v.is_null()) return required;
  for (auto field : v.get_object()) {
    if (std::string_view(field.unescaped_key()) != "nodeAffinity") continue;
    od::value node = field.value();
    if (node.is_null()) continue;
    for (auto f : node.get_object()) {
      if (std::string_view(f.unescaped_key()) == "requiredDuringSchedulingIgnoredDuringExecution") required = !f.value().is_null();
    }
  }
  return required;
}

void DecodePodSpec(od::value v, Pod& out, PodClaims& claims) {
  std::vector<base::ContainerAmounts> containers, init;
  std::optional<base::ContainerAmounts> pod_level;
  base::Amounts overhead;
  for (auto field : v.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "nodeName") out.node_name = str(field.value());
    else if (key == "schedulerName") out.scheduler_name = str(field.value());
    else if (key == "priorityClassName") out.priority_class_name = str(field.value());
    else if (key == "priority") out.priority = static_cast<int32_t>(Int64Of(field.value()));
    else if (key == "activeDeadlineSeconds") out.active_deadline_seconds = Int64Of(field.value());
    else if (key == "containers") DecodeContainers(field.value(), containers);
    else if (key == "initContainers") DecodeContainers(field.value(), init);
    else if (key == "resources") DecodeResources(field.value(), pod_level.emplace());
    else if (key == "overhead") overhead = AmountsOf(field.value());
    else if (key == "resourceClaims") DecodeResourceClaims(field.value(), claims);
    else if (key == "nodeSelector") DecodePairs(field.value(), out.node_selector, KeptAnnotations::kNone);
    else if (key == "tolerations") DecodeTolerations(field.value(), out.tolerations);
    else if (key == "affinity") out.required_node_affinity = HasRequiredNodeAffinity(field.value());
    else if (key == "schedulingGroup") DecodeSchedulingGroup(field.value(), out.pod_group_name);
    else if (key == "schedulingGates") {
      od::value gates = field.value();
      if (gates.is_null()) continue;
      for (auto gate : gates.get_array()) {
        for (auto gf : gate.get_object()) {
          if (std::string_view(gf.unescaped_key()) == "name") out.scheduling_gates.emplace_back(str(gf.value()));
        }
      }
    }
  }
  const base::Amounts total = base::PodRequests(containers, init, pod_level ? &*pod_level : nullptr, overhead);
  out.requests.clear();
  out.requests.reserve(total.size());
  for (const auto& [name, milli] : total) out.requests.push_back({name, milli});
}

void DecodeTaints(od::value v, std::vector<Taint>& out) {
  if (v.is_null()) return;
  for (auto item : v.get_array()) {
    Taint t;
    for (auto field : item.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "key") t.key = str(field.value());
      else if (key == "value") t.value = str(field.value());
      else if (key == "effect") t.effect = str(field.value());
      else if (key == "timeAdded") t.time_added = str(field.value());
    }
    out.push_back(std::move(t));
  }
}

// A node's status.conditions: the statuses, and the rest of each condition.
void DecodeNodeConditions(od::value v, StringPairs& statuses, std::vector<NodeConditionDetail>& details) {
  if (v.is_null()) return;
  StringPairs scratch;
  std::string status;
  for (auto item : v.get_array()) {
    NodeConditionDetail& d = details.emplace_back();
    status.clear();
    for (auto field : item.get_object()) {
      std::string_view key = field.unescaped_key();
      if (key == "type") d.type = str(field.value());
      else if (key == "status") status = str(field.value());
      else if (key == "reason") d.reason = str(field.value());
      else if (key == "message") d.message = str(field.value());
      else if (key == "lastTransitionTime") d.last_transition_time = str(field.value());
    }
    scratch.Add(d.type, status);
  }
  statuses = scratch.ExactCopy();
  details.shrink_to_fit();
}

// The container's state.terminated when it exited non-zero.
std::optional<ContainerExit> FailedExit(od::value container_status) {
  ContainerExit exit;
  for (auto field : container_status.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "name") {
      exit.name = str(field.value());
    } else if (key == "state") {
      od::value state = field.value();
      if (state.is_null()) continue;
      for (auto sf : state.get_object()) {
        if (std::string_view(sf.unescaped_key()) != "terminated" || sf.value().is_null()) continue;
        for (auto tf : sf.value().get_object()) {
          std::string_view tkey = tf.unescaped_key();
          if (tkey == "exitCode") exit.exit_code = static_cast<int32_t>(Int64Of(tf.value()));
          else if (tkey == "reason") exit.reason = str(tf.value());
          else if (tkey == "finishedAt") exit.finished_at = str(tf.value());
        }
      }
    }
  }
  if (exit.exit_code == 0) return std::nullopt;
  return exit;
}

// The first container of a containerStatuses list that exited non-zero.
std::optional<ContainerExit> FirstFailedContainer(od::value v) {
  if (v.is_null()) return std::nullopt;
  std::optional<ContainerExit> first;
  for (auto item : v.get_array()) {
    auto exit = FailedExit(item.value());  // Every item is read through: On-Demand reads in order.
    if (!first) first = std::move(exit);
  }
  return first;
}

void MetaFromJson(const nlohmann::json& m, ObjectMeta& out) {
  auto s = [&](const char* k) { return m.contains(k) && m[k].is_string() ? m[k].get<std::string>() : std::string(); };
  out.name = s("name");
  out.namespace_ = s("namespace");
  out.uid = s("uid");
  out.resource_version = s("resourceVersion");
  out.creation_timestamp = s("creationTimestamp");
  out.deletion_timestamp = s("deletionTimestamp");
  if (m.contains("generation") && m["generation"].is_number_integer()) out.generation = m["generation"].get<int64_t>();
  for (const char* section : {"labels", "annotations"}) {
    if (!m.contains(section) || !m[section].is_object()) continue;
    auto& target = std::string_view(section) == "labels" ? out.labels : out.annotations;
    for (const auto& [k, v] : m[section].items()) {
      if (v.is_string()) target.Add(k, v.get<std::string>());
    }
  }
  if (m.contains("ownerReferences") && m["ownerReferences"].is_array()) {
    for (const auto& r : m["ownerReferences"]) {
      if (!r.is_object()) continue;
      out.owner_references.push_back({r.value("apiVersion", ""), r.value("kind", ""), r.value("name", ""),
                                      r.value("uid", ""), r.value("controller", false)});
    }
  }
}

}  // namespace

const ResourceAmount* FindAmount(const std::vector<ResourceAmount>& amounts, std::string_view name) {
  for (const auto& a : amounts) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::optional<int64_t> ParseQuantityMilli(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++i;
  }
  // Mantissa as an exact decimal: integer digits and fraction digits.
  long double mantissa = 0;
  size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    mantissa = mantissa * 10 + (text[i++] - '0');
    ++digits;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    long double scale = 0.1L;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      mantissa += (text[i++] - '0') * scale;
      scale /= 10;
      ++digits;
    }
  }
  if (digits == 0) return std::nullopt;
  std::string_view suffix = text.substr(i);
  long double multiplier = 1;
  if (suffix.empty()) multiplier = 1;
  else if (suffix == "m") multiplier = 1e-3L;
  else if (suffix == "u") multiplier = 1e-6L;
  else if (suffix == "n") multiplier = 1e-9L;
  else if (suffix == "k") multiplier = 1e3L;
  else if (suffix == "M") multiplier = 1e6L;
  else if (suffix == "G") multiplier = 1e9L;
  else if (suffix == "T") multiplier = 1e12L;
  else if (suffix == "P") multiplier = 1e15L;
  else if (suffix == "Ki") multiplier = 1024.0L;
  else if (suffix == "Mi") multiplier = 1024.0L * 1024;
  else if (suffix == "Gi") multiplier = 1024.0L * 1024 * 1024;
  else if (suffix == "Ti") multiplier = 1024.0L * 1024 * 1024 * 1024;
  else if (suffix == "Pi") multiplier = 1024.0L * 1024 * 1024 * 1024 * 1024;
  else if (suffix[0] == 'e' || suffix[0] == 'E') {
    int exponent = 0;
    auto [ptr, ec] = std::from_chars(suffix.data() + 1, suffix.data() + suffix.size(), exponent);
    if (ec != std::errc() || ptr != suffix.data() + suffix.size() || exponent > 18 || exponent < -18) return std::nullopt;
    multiplier = std::pow(10.0L, exponent);
  } else {
    return std::nullopt;
  }
  long double milli = mantissa * multiplier * 1000;
  if (milli > 9.2e18L) return std::nullopt;
  // Kubernetes rounds up fractional milli-values (a request of 0.5m is 1m).
  auto value = static_cast<int64_t>(std::ceil(milli - 1e-9L));
  return negative ? -value : value;
}

namespace {

void DecodeMeta(od::value value, ObjectMeta& out, KeptAnnotations kept) {
  for (auto field : value.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "name") out.name = str(field.value());
    else if (key == "namespace") out.namespace_ = str(field.value());
    else if (key == "uid") out.uid = str(field.value());
    else if (key == "resourceVersion") out.resource_version = str(field.value());
    else if (key == "generation") out.generation = Int64Of(field.value());
    else if (key == "creationTimestamp") out.creation_timestamp = str(field.value());
    else if (key == "deletionTimestamp") out.deletion_timestamp = str(field.value());
    else if (key == "labels") DecodePairs(field.value(), out.labels, KeptAnnotations::kNone);
    else if (key == "annotations") DecodePairs(field.value(), out.annotations, kept);
    else if (key == "ownerReferences") DecodeOwnerRefs(field.value(), out.owner_references);
  }
}

}  // namespace

void DecodeObjectMeta(od::value value, ObjectMeta& out) { DecodeMeta(value, out, KeptAnnotations::kAllButKubectls); }

void Codec<Pod>::Decode(od::value value, Pod& out) {
  PodClaims claims;
  for (auto field : value.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "metadata") {
      DecodeMeta(field.value(), out.meta, KeptAnnotations::kGangplanks);
    } else if (key == "spec") {
      DecodePodSpec(field.value(), out, claims);
    } else if (key == "status") {
      PodFailure failure;
      std::optional<ContainerExit> init_container;
      for (auto sf : field.value().get_object()) {
        std::string_view skey = sf.unescaped_key();
        if (skey == "phase") out.phase = str(sf.value());
        else if (skey == "conditions") DecodeConditions(sf.value(), out.conditions);
        else if (skey == "reason") failure.reason = str(sf.value());
        else if (skey == "message") failure.message = str(sf.value());
        else if (skey == "containerStatuses") failure.container = FirstFailedContainer(sf.value());
        else if (skey == "initContainerStatuses") init_container = FirstFailedContainer(sf.value());
        else if (skey == "resourceClaimStatuses") DecodeClaimStatuses(sf.value(), claims);
        else if (skey == "extendedResourceClaimStatus") DecodeExtendedClaim(sf.value(), claims);
      }
      if (!failure.container) failure.container = std::move(init_container);
      if (!failure.reason.empty() || !failure.message.empty() || failure.container) {
        out.failure = std::make_shared<const PodFailure>(std::move(failure));
      }
    }
  }
  if (!claims.claims.empty() || !claims.statuses.empty() || !claims.extended_resource_claim.empty()) {
    out.claims = std::make_shared<const PodClaims>(std::move(claims));
  }
}

void Codec<Node>::Decode(od::value value, Node& out) {
  for (auto field : value.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "metadata") {
      DecodeObjectMeta(field.value(), out.meta);
    } else if (key == "spec") {
      for (auto sf : field.value().get_object()) {
        std::string_view skey = sf.unescaped_key();
        if (skey == "unschedulable") out.unschedulable = BoolOf(sf.value());
        else if (skey == "taints") DecodeTaints(sf.value(), out.taints);
      }
    } else if (key == "status") {
      for (auto sf : field.value().get_object()) {
        std::string_view skey = sf.unescaped_key();
        if (skey == "capacity") DecodeAmounts(sf.value(), out.capacity);
        else if (skey == "allocatable") DecodeAmounts(sf.value(), out.allocatable);
        else if (skey == "conditions") DecodeNodeConditions(sf.value(), out.conditions, out.condition_details);
      }
    }
  }
}

void Codec<GenericObject>::Decode(od::value value, GenericObject& out) {
  std::string_view raw = simdjson::to_json_string(value);
  out.json.assign(raw);
  auto parsed = nlohmann::json::parse(out.json, nullptr, false);
  if (!parsed.is_object()) throw DecodeError("object is not a JSON object");
  if (parsed.contains("metadata") && parsed["metadata"].is_object()) MetaFromJson(parsed["metadata"], out.meta);
}

}  // namespace gangplank::kube
