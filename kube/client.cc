#include "kube/client.h"

#include "kube/api_error.h"
#include "kube/conditions.h"

namespace gangplank::kube {
namespace {

std::string NameOf(const Json& object) {
  if (!object.contains("metadata") || !object["metadata"].contains("name") || !object["metadata"]["name"].is_string()) {
    throw std::invalid_argument("object has no metadata.name");
  }
  return object["metadata"]["name"].get<std::string>();
}

Json ParseBody(const std::string& body) {
  auto j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) throw DecodeError("API server answered with invalid JSON");
  return j;
}

}  // namespace

std::string ContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kJson: return "application/json-patch+json";
    case PatchType::kStrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::kApply: return "application/apply-patch+yaml";
  }
  return "application/json";
}

Json MakeMergePatch(const Json& from, const Json& to) {
  if (!from.is_object() || !to.is_object()) return to;
  Json patch = Json::object();
  for (const auto& [key, value] : from.items()) {
    if (!to.contains(key)) patch[key] = nullptr;
  }
  for (const auto& [key, value] : to.items()) {
    auto it = from.find(key);
    if (it == from.end()) {
      patch[key] = value;
    } else if (*it != value) {
      patch[key] = (it->is_object() && value.is_object()) ? MakeMergePatch(*it, value) : value;
    }
  }
  return patch;
}

Json MakeJsonPatch(const Json& from, const Json& to, bool guard_resource_version) {
  Json ops = Json::diff(from, to);
  if (guard_resource_version) {
    if (!from.contains("metadata") || !from["metadata"].contains("resourceVersion")) {
      throw std::invalid_argument("a guarded JSON patch needs metadata.resourceVersion in the original object");
    }
    ops.insert(ops.begin(), Json{{"op", "test"}, {"path", "/metadata/resourceVersion"},
                                 {"value", from["metadata"]["resourceVersion"]}});
  }
  return ops;
}

QueryParams Client::WriteQuery(const WriteOptions& w) const {
  QueryParams q;
  if (!w.field_manager.empty()) q.emplace_back("fieldManager", w.field_manager);
  if (w.force) q.emplace_back("force", "true");
  if (w.dry_run) q.emplace_back("dryRun", "All");
  if (w.strict) q.emplace_back("fieldValidation", "Strict");
  return q;
}

Json Client::Get(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
                 const std::string& subresource) {
  RestRequest request;
  request.path = r.ObjectPath(ns, name, subresource);
  return ParseBody(rest_->Execute(request).body);
}

std::optional<Json> Client::TryGet(const ResourceDescriptor& r, const std::string& ns, const std::string& name) {
  try {
    return Get(r, ns, name);
  } catch (const NotFoundError&) {
    return std::nullopt;
  }
}

Json Client::List(const ResourceDescriptor& r, const std::string& ns, ListOptions options) {
  Json result = {{"apiVersion", r.ApiVersion()}, {"kind", r.kind + "List"}, {"metadata", Json::object()},
                 {"items", Json::array()}};
  std::string rv = ListPages(
      *rest_, r, ns, std::move(options),
      [&](std::string_view body) {
        Json page = ParseBody(std::string(body));
        ListMetaInfo meta;
        if (page.contains("metadata")) {
          meta.resource_version = page["metadata"].value("resourceVersion", "");
          meta.continue_token = page["metadata"].value("continue", "");
        }
        if (page.contains("items") && page["items"].is_array()) {
          for (auto& item : page["items"]) result["items"].push_back(std::move(item));
        }
        return meta;
      },
      [&] { result["items"] = Json::array(); });
  result["metadata"]["resourceVersion"] = rv;
  return result;
}

Json Client::Create(const ResourceDescriptor& r, const std::string& ns, const Json& object, const WriteOptions& w) {
  RestRequest request;
  request.method = "POST";
  request.path = r.CollectionPath(ns.empty() && r.namespaced ? rest_->config().namespace_ : ns);
  request.query = WriteQuery(w);
  request.body = object.dump();
  return ParseBody(rest_->Execute(request).body);
}

Json Client::Update(const ResourceDescriptor& r, const std::string& ns, const Json& object, const WriteOptions& w) {
  if (!object.contains("metadata") || !object["metadata"].contains("resourceVersion")) {
    throw std::invalid_argument("update of " + r.plural + " needs metadata.resourceVersion (optimistic concurrency)");
  }
  RestRequest request;
  request.method = "PUT";
  request.path = r.ObjectPath(ns, NameOf(object));
  request.query = WriteQuery(w);
  request.body = object.dump();
  return ParseBody(rest_->Execute(request).body);
}

Json Client::UpdateStatus(const ResourceDescriptor& r, const std::string& ns, const Json& object,
                           const WriteOptions& w) {
  if (!object.contains("metadata") || !object["metadata"].contains("resourceVersion")) {
    throw std::invalid_argument("status update of " + r.plural + " needs metadata.resourceVersion");
  }
  RestRequest request;
  request.method = "PUT";
  request.path = r.ObjectPath(ns, NameOf(object), "status");
  request.query = WriteQuery(w);
  request.body = object.dump();
  return ParseBody(rest_->Execute(request).body);
}

Json Client::Patch(const ResourceDescriptor& r, const std::string& ns, const std::string& name, PatchType type,
                   const Json& patch, const std::string& subresource, const WriteOptions& w) {
  if (type == PatchType::kApply && w.field_manager.empty()) {
    throw std::invalid_argument("server-side apply needs a field manager");
  }
  RestRequest request;
  request.method = "PATCH";
  request.path = r.ObjectPath(ns, name, subresource);
  request.query = WriteQuery(w);
  request.content_type = ContentType(type);
  request.body = patch.dump();
  // A JSON patch may append to lists: repeating it after an ambiguous failure could apply it twice.
  request.idempotent = type != PatchType::kJson;
  return ParseBody(rest_->Execute(request).body);
}

Json Client::Apply(const ResourceDescriptor& r, const std::string& ns, const Json& object, const WriteOptions& w,
                   const std::string& subresource) {
  if (!object.contains("apiVersion") || !object.contains("kind")) {
    throw std::invalid_argument("server-side apply needs apiVersion and kind in the object");
  }
  return Patch(r, ns, NameOf(object), PatchType::kApply, object, subresource, w);
}

bool Client::Remove(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
                    const DeleteOptions& options) {
  RestRequest request;
  request.method = "DELETE";
  request.path = r.ObjectPath(ns, name);
  Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (!options.precondition_uid.empty()) body["preconditions"]["uid"] = options.precondition_uid;
  if (!options.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  }
  request.body = body.dump();
  try {
    rest_->Execute(request);
    return true;
  } catch (const NotFoundError&) {
    return false;
  }
}

Json Client::Modify(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
                    const std::function<bool(Json&)>& mutate, int attempts) {
  for (int i = 1;; ++i) {
    Json object = Get(r, ns, name);
    if (!mutate(object)) return object;
    try {
      return Update(r, ns, object);
    } catch (const ConflictError&) {
      if (i >= attempts) throw;
    }
  }
}

Json Client::WriteStatus(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
                          const std::function<void(Json&, const Json&)>& fill, int attempts) {
  for (int i = 1;; ++i) {
    Json object = Get(r, ns, name);
    Json status = object.contains("status") && object["status"].is_object() ? object["status"] : Json::object();
    Json before = status;
    SetObservedGeneration(status, object);
    fill(status, object);
    if (status == before) return object;
    object["status"] = std::move(status);
    try {
      return UpdateStatus(r, ns, object);
    } catch (const ConflictError&) {
      if (i >= attempts) throw;
    }
  }
}

BindOutcome Client::BindPod(const std::string& ns, const std::string& pod, const std::string& node,
                             const std::string& pod_uid) {
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", pod}, {"namespace", ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (!pod_uid.empty()) binding["metadata"]["uid"] = pod_uid;
  RestRequest request;
  request.method = "POST";
  request.path = resources::Pods().ObjectPath(ns, pod, "binding");
  request.body = binding.dump();
  auto current_state = [&]() -> std::optional<BindOutcome> {
    auto current = TryGet(resources::Pods(), ns, pod);
    if (!current) return BindOutcome::kPodGone;
    const Json& meta = (*current)["metadata"];
    if (!pod_uid.empty() && meta.value("uid", "") != pod_uid) return BindOutcome::kPodGone;  // same name, new pod
    if (meta.contains("deletionTimestamp") && !meta["deletionTimestamp"].is_null()) return BindOutcome::kPodGone;
    std::string bound = current->contains("spec") ? (*current)["spec"].value("nodeName", "") : "";
    if (bound == node) return BindOutcome::kAlreadyBoundHere;
    return std::nullopt;
  };
  try {
    rest_->Execute(request);
    return BindOutcome::kBound;
  } catch (const NotFoundError&) {
    return BindOutcome::kPodGone;
  } catch (const ConflictError&) {
    if (auto state = current_state()) return *state;
    throw;
  } catch (const net::TransportError&) {
    // The binding may or may not have happened: look before deciding.
    if (auto state = current_state()) return *state == BindOutcome::kAlreadyBoundHere ? BindOutcome::kBound : *state;
    throw;
  } catch (const ServerError&) {
    if (auto state = current_state()) return *state == BindOutcome::kAlreadyBoundHere ? BindOutcome::kBound : *state;
    throw;
  }
}

EvictOutcome Client::EvictPod(const std::string& ns, const std::string& pod, std::optional<int64_t> grace_period_seconds,
                               const std::string& pod_uid) {
  Json eviction = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", pod}, {"namespace", ns}}}};
  if (grace_period_seconds) eviction["deleteOptions"]["gracePeriodSeconds"] = *grace_period_seconds;
  if (!pod_uid.empty()) eviction["deleteOptions"]["preconditions"]["uid"] = pod_uid;
  RestRequest request;
  request.method = "POST";
  request.path = resources::Pods().ObjectPath(ns, pod, "eviction");
  request.body = eviction.dump();
  request.eviction = true;
  try {
    rest_->Execute(request);
    return EvictOutcome::kEvicted;
  } catch (const NotFoundError&) {
    return EvictOutcome::kAlreadyGone;
  }
}

}  // namespace gangplank::kube
