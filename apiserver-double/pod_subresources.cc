// pods/binding (the scheduler's and extender's write) and PDB-aware pods/eviction, plus the PDB status
// the disruption controller would maintain.
#include <cmath>

#include "apiserver-double/double_impl.h"
#include "apiserver-double/selectors.h"

namespace gangplank::apiserver_double {

using nlohmann::json;

namespace {

std::string meta(const json& object, const char* field) {
  return object.value(json::json_pointer(std::string("/metadata/") + field), std::string());
}

json SuccessStatus(int code) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"}, {"code", code}};
}

// Healthy = Running and Ready; a Running pod that reports no Ready condition at all counts as ready,
// since nothing in the double plays kubelet.
bool PodHealthy(const json& pod) {
  if (pod.contains("/metadata/deletionTimestamp"_json_pointer)) return false;
  if (pod.value("/status/phase"_json_pointer, std::string()) != "Running") return false;
  if (!pod.contains("/status/conditions"_json_pointer)) return true;
  for (const auto& c : pod["/status/conditions"_json_pointer]) {
    if (c.value("type", std::string()) == "Ready") return c.value("status", std::string()) == "True";
  }
  return true;
}

bool PdbSelects(const json& pdb, const json& pod) {
  if (!pdb.contains("/spec/selector"_json_pointer) || pdb["/spec/selector"_json_pointer].is_null()) return false;
  const json labels = pod.contains("/metadata/labels"_json_pointer) ? pod["/metadata/labels"_json_pointer] : json::object();
  return LabelSelector::from_json(pdb["/spec/selector"_json_pointer]).matches(labels);
}

// int or "N%" scaled against `total`, rounding up as the disruption controller does.
long scaled(const json& value, long total) {
  if (value.is_number_integer()) return value.get<long>();
  if (value.is_string()) {
    std::string s = value.get<std::string>();
    if (!s.empty() && s.back() == '%') {
      const double pct = std::stod(s.substr(0, s.size() - 1));
      return static_cast<long>(std::ceil(pct * static_cast<double>(total) / 100.0));
    }
    return std::stol(s);
  }
  return 0;
}

}  // namespace

json ApiServerDouble::Impl::PdbStatus(const json& pdb, const std::vector<ObjectPtr>& pods) {
  long expected = 0, healthy = 0;
  for (const auto& pod : pods) {
    if (!PdbSelects(pdb, *pod)) continue;
    const std::string phase = pod->value("/status/phase"_json_pointer, std::string());
    if (phase == "Succeeded" || phase == "Failed") continue;
    ++expected;
    if (PodHealthy(*pod)) ++healthy;
  }
  long desired = expected;
  if (pdb.contains("/spec/minAvailable"_json_pointer)) {
    desired = scaled(pdb["/spec/minAvailable"_json_pointer], expected);
  } else if (pdb.contains("/spec/maxUnavailable"_json_pointer)) {
    desired = std::max(0L, expected - scaled(pdb["/spec/maxUnavailable"_json_pointer], expected));
  }
  const long allowed = std::max(0L, healthy - desired);
  json status = pdb.contains("status") && pdb["status"].is_object() ? pdb["status"] : json::object();
  status["currentHealthy"] = healthy;
  status["desiredHealthy"] = desired;
  status["expectedPods"] = expected;
  status["disruptionsAllowed"] = allowed;
  status["observedGeneration"] = pdb.value("/metadata/generation"_json_pointer, 1L);
  const bool ok = allowed > 0;
  json condition = {{"type", "DisruptionAllowed"},
                    {"status", ok ? "True" : "False"},
                    {"reason", ok ? "SufficientPods" : "InsufficientPods"},
                    {"message", ""},
                    {"observedGeneration", status["observedGeneration"]}};
  std::string since = NowRfc3339();
  if (status.contains("conditions") && status["conditions"].is_array()) {
    for (const auto& c : status["conditions"]) {
      if (c.value("type", std::string()) == "DisruptionAllowed" && c.value("status", std::string()) == condition["status"]) {
        since = c.value("lastTransitionTime", since);
      }
    }
  }
  condition["lastTransitionTime"] = since;
  status["conditions"] = json::array({condition});
  return status;
}

void ApiServerDouble::Impl::RefreshPdbsInTxn(ObjectStore::Txn& txn, const std::string& ns) {
  const auto pdbs = txn.List("poddisruptionbudgets.policy", ns);
  if (pdbs.empty()) return;
  const auto pods = txn.List("pods", ns);
  for (const auto& pdb : pdbs) {
    json status = PdbStatus(*pdb, pods);
    if (pdb->contains("status") && (*pdb)["status"] == status) continue;
    json next = *pdb;
    next["status"] = std::move(status);
    txn.put("poddisruptionbudgets.policy", std::move(next));
  }
}

net::HttpResponse ApiServerDouble::Impl::BindPod(const net::HttpRequest& req, const Target& t) {
  const json binding = ParseBody(req);
  const std::string node = binding.value("/target/name"_json_pointer, std::string());
  if (node.empty()) throw Invalid("Binding", t.name, "target.name", "Required value");
  const std::string target_kind = binding.value("/target/kind"_json_pointer, std::string());
  if (!target_kind.empty() && target_kind != "Node") {
    throw Invalid("Binding", t.name, "target.kind", "Unsupported value: \"" + target_kind + "\": supported values: \"Node\"");
  }
  const std::string wanted_uid = binding.value("/metadata/uid"_json_pointer, std::string());
  store_.Transact([&](ObjectStore::Txn& txn) {
    ObjectPtr pod = txn.Get("pods", t.namespace_name, t.name);
    if (!pod) throw NotFound("pods", t.name);
    if (!wanted_uid.empty() && wanted_uid != meta(*pod, "uid")) {
      throw Conflict("pods", t.name, "", "Precondition failed: UID in precondition: " + wanted_uid + ", UID in object meta: " + meta(*pod, "uid"));
    }
    if (pod->contains("/metadata/deletionTimestamp"_json_pointer)) {
      throw Conflict("pods", t.name, "", "pod " + t.name + " is being deleted, cannot be assigned to a host");
    }
    const std::string bound = pod->value("/spec/nodeName"_json_pointer, std::string());
    if (!bound.empty()) {
      throw Conflict("pods", t.name, "", "pod " + t.name + " is already assigned to node \"" + bound + "\"");
    }
    json next = *pod;
    next["spec"]["nodeName"] = node;
    json condition = {{"type", "PodScheduled"}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", NowRfc3339()}};
    json& conditions = next["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    bool replaced = false;
    for (auto& c : conditions) {
      if (c.value("type", std::string()) == "PodScheduled") {
        c = condition;
        replaced = true;
      }
    }
    if (!replaced) conditions.push_back(condition);
    txn.put("pods", std::move(next));
    RefreshPdbsInTxn(txn, t.namespace_name);
    return 0;
  });
  return JsonResponse(201, SuccessStatus(201));
}

net::HttpResponse ApiServerDouble::Impl::EvictPod(const net::HttpRequest& req, const Target& t) {
  const json eviction = ParseBody(req);
  const json options = eviction.contains("deleteOptions") ? eviction["deleteOptions"] : json::object();
  store_.Transact([&](ObjectStore::Txn& txn) {
    ObjectPtr pod = txn.Get("pods", t.namespace_name, t.name);
    if (!pod) throw NotFound("pods", t.name);
    if (!pod->contains("/metadata/deletionTimestamp"_json_pointer) && PodHealthy(*pod)) {
      std::vector<ObjectPtr> covering;
      for (const auto& pdb : txn.List("poddisruptionbudgets.policy", t.namespace_name)) {
        if (PdbSelects(*pdb, *pod)) covering.push_back(pdb);
      }
      if (covering.size() > 1) {
        throw ApiError(500, "InternalError",
                       "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
      }
      if (covering.size() == 1) {
        const json status = PdbStatus(*covering.front(), txn.List("pods", t.namespace_name));
        if (status["disruptionsAllowed"].get<long>() <= 0) {
          const std::string pdb_name = meta(*covering.front(), "name");
          throw ApiError(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.",
                         {{"causes",
                           {{{"reason", "DisruptionBudget"},
                             {"message", "The disruption budget " + pdb_name + " needs " + status["desiredHealthy"].dump() +
                                             " healthy pods and has " + status["currentHealthy"].dump() + " currently"}}}}});
        }
      }
    }
    DeleteInTxn(txn, t.type, t.namespace_name, t.name, options);
    return 0;
  });
  return JsonResponse(201, SuccessStatus(201));
}

}  // namespace gangplank::apiserver_double
