// REST verbs on resources: routing, get, list (snapshot pages with limit/continue), create, update,
// patch and delete, with the apiserver's optimistic concurrency, status-subresource and generation rules.
#include <algorithm>
#include <chrono>

#include "apiserver-double/builtin/builtin_admission.h"
#include "apiserver-double/double_impl.h"
#include "apiserver-double/patches.h"
#include "apiserver-double/selectors.h"
#include "apiserver-double/table_printer.h"

namespace gangplank::apiserver_double {

using nlohmann::json;

namespace {

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string meta(const json& object, const char* field) {
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object()) return "";
  const auto& m = object["metadata"];
  return m.contains(field) && m[field].is_string() ? m[field].get<std::string>() : std::string();
}

// True when objects a and b hold equal values for every key except those in `skip` (no copies).
bool EqualExcept(const json& a, const json& b, std::initializer_list<const char*> skip) {
  auto skipped = [&](const std::string& key) {
    for (const char* s : skip) {
      if (key == s) return true;
    }
    return false;
  };
  std::size_t counted_a = 0;
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (skipped(it.key())) continue;
    ++counted_a;
    auto other = b.find(it.key());
    if (other == b.end() || *other != it.value()) return false;
  }
  std::size_t counted_b = 0;
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (!skipped(it.key())) ++counted_b;
  }
  return counted_a == counted_b;
}

// The generation counts every change but to metadata (and to status when it has its own subresource).
bool GenerationRelevantChange(const json& next, const json& cur, bool has_status) {
  return has_status ? !EqualExcept(next, cur, {"metadata", "apiVersion", "kind", "status"})
                    : !EqualExcept(next, cur, {"metadata", "apiVersion", "kind"});
}

// Whether a write changes anything at all (resourceVersion and managedFields aside).
bool SameObject(const json& next, const json& cur) {
  if (!EqualExcept(next, cur, {"metadata"})) return false;
  static const json empty = json::object();
  const json& a = next.contains("metadata") ? next["metadata"] : empty;
  const json& b = cur.contains("metadata") ? cur["metadata"] : empty;
  return EqualExcept(a, b, {"resourceVersion", "managedFields"});
}

// Continue tokens: unpadded base64url (safe in a query string even unescaped) of
// {"rv":N,"start":"<key after which to resume>","t":<issued unix seconds>}.
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64(const std::string& in) {
  std::string out;
  int val = 0, bits = -6;
  for (unsigned char c : in) {
    val = (val << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(kB64[(val >> bits) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > -6) out.push_back(kB64[((val << 8) >> (bits + 8)) & 0x3F]);
  return out;
}

std::string unbase64(const std::string& in) {
  std::string out;
  int val = 0, bits = -8;
  for (unsigned char c : in) {
    if (c == '=') break;
    const char* p = std::strchr(kB64, c);
    if (p == nullptr || c == 0) throw BadRequest("continue token is not valid base64");
    val = (val << 6) + static_cast<int>(p - kB64);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

long long UnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::optional<Target> ApiServerDouble::Impl::ParseTarget(const std::string& path) const {
  const auto parts = SplitPath(path);
  std::string group, version;
  std::size_t i = 0;
  if (parts.size() >= 3 && parts[0] == "api" && parts[1] == "v1") {
    version = "v1";
    i = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
  Target t;
  std::string resource;
  if (rest.size() >= 3 && rest[0] == "namespaces" && !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    t.namespace_name = rest[1];
    resource = rest[2];
    if (rest.size() >= 4) t.name = rest[3];
    if (rest.size() >= 5) t.subresource = rest[4];
    if (rest.size() > 5) return std::nullopt;
  } else {
    resource = rest[0];
    if (rest.size() >= 2) t.name = rest[1];
    if (rest.size() >= 3) t.subresource = rest[2];
    if (rest.size() > 3) return std::nullopt;
  }
  std::shared_lock lock(catalog_mutex_);
  const ResourceType* type = catalog_.find(group, version, resource);
  if (type == nullptr) {
    throw ApiError(404, "NotFound", "the server could not find the requested resource",
                   {{"causes", {{{"reason", "UnexpectedServerResponse"}, {"message", "404 page not found"}}}}});
  }
  t.type = *type;
  if (!type->namespaced && !t.namespace_name.empty()) {
    throw ApiError(404, "NotFound", "the server could not find the requested resource");
  }
  return t;
}

json ApiServerDouble::Impl::present(const ResourceType& type, const json& object) const {
  if (!type.custom) return object;
  json copy = ReadView(type, object);  // defaulted on every read, as the apiserver does
  copy["apiVersion"] = type.ApiVersion();
  return copy;
}

namespace {

// The 400 a create or update body with unknown fields gets under fieldValidation=Strict starts so.
std::string CannotHandle(const ResourceType& type) {
  return type.kind + " in version \"" + type.version + "\" cannot be handled as a " + type.kind + ": ";
}

}  // namespace

net::HttpResponse ApiServerDouble::Impl::Serve(const net::HttpRequest& req, net::HttpResponder& responder) {
  if (auto d = discovery(req)) return *d;
  if (req.path == "/healthz" || req.path == "/readyz" || req.path == "/livez") return net::HttpResponse::text(200, "ok");
  auto target = ParseTarget(req.path);
  if (!target) {
    return JsonResponse(404, ApiError(404, "NotFound", "the server could not find the requested resource").status());
  }
  const Target& t = *target;
  const bool allowed_sub = t.subresource.empty() || (t.subresource == "status" && t.type.has_status) ||
                           std::find(t.type.extra_subresources.begin(), t.type.extra_subresources.end(), t.subresource) !=
                               t.type.extra_subresources.end();
  if (!allowed_sub) throw ApiError(404, "NotFound", "the server could not find the requested resource");
  const std::string& m = req.method;
  if (t.subresource == "binding") {
    if (m != "POST") throw ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    return BindPod(req, t);
  }
  if (t.subresource == "eviction") {
    if (m != "POST") throw ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    return EvictPod(req, t);
  }
  if (t.name.empty()) {
    if (m == "GET") {
      auto watch = req.QueryParam("watch");
      if (watch && (*watch == "1" || *watch == "true" || watch->empty())) {
        StartWatch(req, t, responder);
        return {};
      }
      return ListObjects(req, t);
    }
    if (m == "POST") return CreateObject(req, t);
    if (m == "DELETE") return DeleteCollection(req, t);
  } else {
    if (m == "GET") return GetObject(req, t);
    if (m == "PUT") return UpdateObject(req, t);
    if (m == "PATCH") return PatchObject(req, t);
    if (m == "DELETE" && t.subresource.empty()) return DeleteObject(req, t);
  }
  throw ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

net::HttpResponse ApiServerDouble::Impl::GetObject(const net::HttpRequest& req, const Target& t) {
  auto object = store_.Transact([&](ObjectStore::Txn& txn) { return txn.Get(t.type.GroupResource(), t.namespace_name, t.name); });
  if (!object) throw NotFound(t.type.plural, t.name, t.type.group);
  if (WantsTable(req)) {
    return JsonResponse(200, MakeTable(t.type, {present(t.type, *object)}, {{"resourceVersion", meta(*object, "resourceVersion")}},
                                         IncludeObjectParam(req.QueryParam("includeObject"))));
  }
  return JsonResponse(200, present(t.type, *object));
}

net::HttpResponse ApiServerDouble::Impl::ListObjects(const net::HttpRequest& req, const Target& t) {
  const LabelSelector labels = LabelSelector::Parse(req.QueryParam("labelSelector").value_or(""));
  const FieldSelector fields = FieldSelector::Parse(req.QueryParam("fieldSelector").value_or(""), t.type.kind);
  long limit = 0;
  if (auto l = req.QueryParam("limit"); l && !l->empty()) {
    try {
      limit = std::stol(*l);
    } catch (const std::exception&) {
      throw BadRequest("invalid limit \"" + *l + "\"");
    }
  }
  const std::string rv_text = req.QueryParam("resourceVersion").value_or("");
  const std::string match = req.QueryParam("resourceVersionMatch").value_or("");
  const std::string token = req.QueryParam("continue").value_or("");
  if (!match.empty() && rv_text.empty()) {
    throw BadRequest("resourceVersionMatch is forbidden unless resourceVersion is provided");
  }
  if (!match.empty() && match != "Exact" && match != "NotOlderThan") {
    throw BadRequest("resourceVersionMatch \"" + match + "\" is not one of Exact, NotOlderThan");
  }
  std::optional<uint64_t> snapshot;
  std::string start_after;
  if (!token.empty()) {
    if (!rv_text.empty() && rv_text != "0") throw BadRequest("specifying resource version is not allowed when using continue");
    json decoded;
    try {
      decoded = json::parse(unbase64(token));
      snapshot = decoded.at("rv").get<uint64_t>();
      start_after = decoded.at("start").get<std::string>();
    } catch (const ApiError&) {
      throw;
    } catch (const std::exception&) {
      throw BadRequest("continue key is not valid: malformed token");
    }
    const long long issued = decoded.value("t", 0LL);
    if (UnixNow() - issued > options_.continue_token_ttl.count()) {
      throw ApiError(410, "Expired", "The provided continue parameter is too old to display a consistent list result. "
                                     "You can start a new list without the continue parameter.");
    }
  } else if (!rv_text.empty() && rv_text != "0") {
    const uint64_t wanted = ParseRv(rv_text);
    if (match == "Exact" || (match.empty() && limit > 0)) {
      snapshot = wanted;
    } else if (wanted > store_.CurrentRv()) {
      throw ApiError(504, "Timeout", "Too large resource version: " + rv_text + ", current: " + std::to_string(store_.CurrentRv()),
                     {{"causes", {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}}},
                      {"retryAfterSeconds", 1}});
    }
  }
  const bool filtered = !labels.empty() || !fields.empty();
  std::function<bool(const json&)> matcher;
  if (filtered) {
    matcher = [&](const json& o) {
      static const json no_labels = json::object();
      const json& lbls = o.contains("/metadata/labels"_json_pointer) ? o["/metadata/labels"_json_pointer] : no_labels;
      return labels.matches(lbls) && fields.matches(o);
    };
  }
  const auto result = store_.ListPageAt(t.type.GroupResource(), t.namespace_name, snapshot, start_after,
                                       limit > 0 ? static_cast<std::size_t>(limit) : 0, matcher);
  const uint64_t snapshot_rv = result.rv;
  const std::vector<ObjectPtr>& page = result.items;
  const std::string& next_start = result.next_start;
  const long remaining = result.remaining;
  json list_meta = {{"resourceVersion", std::to_string(snapshot_rv)}};
  if (!next_start.empty()) {
    list_meta["continue"] = base64(json{{"rv", snapshot_rv}, {"start", next_start}, {"t", UnixNow()}}.dump());
    if (!filtered) list_meta["remainingItemCount"] = remaining;
  }
  if (WantsTable(req)) {
    std::vector<json> items;
    items.reserve(page.size());
    for (const auto& o : page) items.push_back(present(t.type, *o));
    return JsonResponse(200, MakeTable(t.type, items, list_meta, IncludeObjectParam(req.QueryParam("includeObject"))));
  }
  // Assembled as text: re-building a json tree of 100k objects only to dump it would double the work.
  std::string body = "{\"kind\":" + json(t.type.kind + "List").dump() + ",\"apiVersion\":" + json(t.type.ApiVersion()).dump() +
                     ",\"metadata\":" + list_meta.dump() + ",\"items\":[";
  bool first = true;
  for (const auto& o : page) {
    if (!first) body.push_back(',');
    first = false;
    body += t.type.custom ? present(t.type, *o).dump() : StoredText(o);
  }
  body += "]}";
  return net::HttpResponse::json(200, std::move(body));
}

json ApiServerDouble::Impl::PrepareCreateInTxn(ObjectStore::Txn& txn, const ResourceType& type, json object,
                                                  std::vector<std::string>* warnings) {
  const std::string ns = meta(object, "namespace");
  const std::string name = meta(object, "name");
  if (txn.Get(type.GroupResource(), ns, name)) throw AlreadyExists(type.plural, name, type.group);
  if (type.namespaced && options_.require_namespace && !txn.Get("namespaces", "", ns)) {
    throw ApiError(404, "NotFound", "namespaces \"" + ns + "\" not found", ObjectDetails(ns, "", "namespaces"));
  }
  if (type.namespaced && txn.Get("namespaces", "", ns) &&
      txn.Get("namespaces", "", ns)->value("/metadata/deletionTimestamp"_json_pointer, std::string()) != "") {
    throw ApiError(403, "Forbidden", type.plural + " \"" + name + "\" is forbidden: unable to create new content in namespace " +
                                         ns + " because it is being terminated");
  }
  json& m = object["metadata"];
  m["uid"] = NewUid();
  m["creationTimestamp"] = NowRfc3339();
  m["generation"] = 1;
  m.erase("resourceVersion");
  m.erase("deletionTimestamp");
  m.erase("selfLink");
  object["apiVersion"] = type.ApiVersion();
  object["kind"] = type.kind;
  if (type.custom && type.has_status) object.erase("status");
  ValidateCustom(type, object, nullptr, warnings);
  builtin::Admit(type, object, nullptr, txn);
  if (type.kind == "Pod") {
    if (!object.contains("status") || !object["status"].is_object()) object["status"] = json::object();
    if (!object["status"].contains("phase")) object["status"]["phase"] = "Pending";
  } else if (type.kind == "Namespace") {
    object["status"] = {{"phase", "Active"}};
  } else if (type.kind == "PodDisruptionBudget") {
    object["status"] = PdbStatus(object, txn.List("pods", ns));
  }
  return object;
}

ObjectPtr ApiServerDouble::Impl::CreateInTxn(ObjectStore::Txn& txn, const ResourceType& type, json object,
                                               std::vector<std::string>* warnings) {
  object = PrepareCreateInTxn(txn, type, std::move(object), warnings);
  const std::string ns = meta(object, "namespace");
  if (type.kind == "CustomResourceDefinition") {
    std::unique_lock lock(catalog_mutex_);
    catalog_.InstallCrd(object);
    const std::string now = NowRfc3339();
    std::vector<std::string> stored;
    for (const auto& v : object["spec"]["versions"]) {
      if (v.value("storage", false)) stored.push_back(v["name"]);
    }
    object["status"] = {
        {"conditions",
         {{{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"}, {"message", "no conflicts found"}, {"lastTransitionTime", now}},
          {{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"}, {"message", "the initial names have been accepted"}, {"lastTransitionTime", now}}}},
        {"acceptedNames", object["spec"]["names"]},
        {"storedVersions", stored}};
  }
  ObjectPtr stored = txn.put(type.GroupResource(), std::move(object));
  if (type.kind == "Pod") RefreshPdbsInTxn(txn, ns);
  return stored;
}

ObjectPtr ApiServerDouble::Impl::WriteInTxn(ObjectStore::Txn& txn, const ResourceType& type, const ObjectPtr& current,
                                              json desired, bool status_write, bool dry_run,
                                              std::vector<std::string>* warnings) {
  // A custom resource is compared and validated against its stored state as a read returns it (defaulted).
  const json cur_view = type.schema ? ReadView(type, *current) : json();
  const json& cur = type.schema ? cur_view : *current;
  json next;
  if (status_write) {
    next = cur;
    if (desired.contains("status")) {
      next["status"] = desired["status"];
    } else {
      next.erase("status");
    }
  } else {
    next = std::move(desired);
    if (type.has_status) {
      if (cur.contains("status")) {
        next["status"] = cur["status"];
      } else {
        next.erase("status");
      }
    }
  }
  // Server-owned metadata never changes through a write.
  for (const char* field : {"uid", "creationTimestamp", "namespace", "name", "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    if (cur["metadata"].contains(field)) {
      next["metadata"][field] = cur["metadata"][field];
    } else {
      next["metadata"].erase(field);
    }
  }
  next["apiVersion"] = cur["apiVersion"];
  next["kind"] = cur["kind"];
  const long generation = cur["metadata"].value("generation", 1L);
  const bool spec_changed = GenerationRelevantChange(next, cur, type.has_status);
  next["metadata"]["generation"] = spec_changed ? generation + 1 : generation;
  if (type.kind == "PodDisruptionBudget") {
    next["status"] = PdbStatus(next, txn.List("pods", meta(cur, "namespace")));
    next["status"]["observedGeneration"] = next["metadata"]["generation"];
  }
  ValidateCustom(type, next, &cur, warnings);  // the whole object, on /status writes too
  if (!status_write) builtin::Admit(type, next, &cur, txn);
  if (SameObject(next, cur)) return current;  // no-op writes do not bump resourceVersion
  if (type.kind == "CustomResourceDefinition" && !status_write) {
    if (next.value("/spec/scope"_json_pointer, std::string()) != cur.value("/spec/scope"_json_pointer, std::string())) {
      throw Invalid(type.kind, meta(cur, "name"), "spec.scope", "Invalid value: \"" +
                    next.value("/spec/scope"_json_pointer, std::string()) + "\": field is immutable");
    }
    ResourceCatalog::ValidateCrd(next);
    if (!dry_run) {
      std::unique_lock lock(catalog_mutex_);
      catalog_.InstallCrd(next);
    }
  }
  if (dry_run) return std::make_shared<const StoredObject>(std::move(next));
  if (cur["metadata"].contains("deletionTimestamp") &&
      (!next["metadata"].contains("finalizers") || next["metadata"]["finalizers"].empty())) {
    return txn.erase(type.GroupResource(), meta(cur, "namespace"), meta(cur, "name"));
  }
  ObjectPtr stored = txn.put(type.GroupResource(), std::move(next));
  if (type.kind == "Pod") RefreshPdbsInTxn(txn, meta(cur, "namespace"));
  return stored;
}

net::HttpResponse ApiServerDouble::Impl::CreateObject(const net::HttpRequest& req, const Target& t) {
  json object = ParseBody(req);
  if (!object.is_object()) throw BadRequest("the request body must be a JSON object");
  const std::string kind = object.value("kind", std::string());
  if (!kind.empty() && kind != t.type.kind) {
    throw BadRequest("the kind in the body (" + kind + ") does not match the resource (" + t.type.kind + ")");
  }
  const std::string api_version = object.value("apiVersion", std::string());
  if (!api_version.empty() && api_version != t.type.ApiVersion()) {
    throw BadRequest("the API version in the data (" + api_version + ") does not match the expected API version (" +
                      t.type.ApiVersion() + ")");
  }
  std::vector<std::string> warnings;
  DecodeCustom(t.type, object, FieldValidationOf(req), CannotHandle(t.type), warnings);
  if (!object.contains("metadata") || !object["metadata"].is_object()) object["metadata"] = json::object();
  json& m = object["metadata"];
  if (t.type.namespaced) {
    const std::string body_ns = meta(object, "namespace");
    if (!body_ns.empty() && body_ns != t.namespace_name) {
      throw BadRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    if (t.namespace_name.empty()) throw BadRequest("a namespaced resource must be created within a namespace");
    m["namespace"] = t.namespace_name;
  }
  if (meta(object, "name").empty()) {
    const std::string prefix = meta(object, "generateName");
    if (prefix.empty()) throw Invalid(t.type.kind, "", "metadata.name", "Required value: name or generateName is required");
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string suffix;
    {
      std::lock_guard lock(random_mutex_);
      for (int i = 0; i < 5; ++i) suffix.push_back(alphabet[random_() % 27]);
    }
    m["name"] = prefix + suffix;
  }
  if (t.type.kind == "CustomResourceDefinition") ResourceCatalog::ValidateCrd(object);
  if (req.QueryParam("dryRun")) {
    // Everything a create checks and defaults (namespace, name, schema, built-in rules), nothing stored.
    json prepared = store_.Transact([&](ObjectStore::Txn& txn) { return PrepareCreateInTxn(txn, t.type, object, &warnings); });
    return WithWarnings(JsonResponse(201, present(t.type, prepared)), warnings);
  }
  auto stored = store_.Transact([&](ObjectStore::Txn& txn) { return CreateInTxn(txn, t.type, object, &warnings); });
  return WithWarnings(JsonResponse(201, present(t.type, *stored)), warnings);
}

net::HttpResponse ApiServerDouble::Impl::UpdateObject(const net::HttpRequest& req, const Target& t) {
  json object = ParseBody(req);
  if (!object.is_object() || !object.contains("metadata")) throw BadRequest("the request body must be an object with metadata");
  if (meta(object, "name") != t.name) {
    throw BadRequest("the name of the object (" + meta(object, "name") + ") does not match the name on the URL (" + t.name + ")");
  }
  if (t.type.namespaced && !meta(object, "namespace").empty() && meta(object, "namespace") != t.namespace_name) {
    throw BadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  std::vector<std::string> warnings;
  DecodeCustom(t.type, object, FieldValidationOf(req), CannotHandle(t.type), warnings);
  const std::string rv = meta(object, "resourceVersion");
  auto stored = store_.Transact([&](ObjectStore::Txn& txn) {
    ObjectPtr current = txn.Get(t.type.GroupResource(), t.namespace_name, t.name);
    if (!current) throw NotFound(t.type.plural, t.name, t.type.group);
    if (!rv.empty() && rv != meta(*current, "resourceVersion")) {
      throw Conflict(t.type.plural, t.name, t.type.group,
                     "the object has been modified; please apply your changes to the latest version and try again");
    }
    return WriteInTxn(txn, t.type, current, object, t.subresource == "status", req.QueryParam("dryRun").has_value(),
                        &warnings);
  });
  return WithWarnings(JsonResponse(200, present(t.type, *stored)), warnings);
}

net::HttpResponse ApiServerDouble::Impl::PatchObject(const net::HttpRequest& req, const Target& t) {
  const std::string content_type = req.header("content-type").value_or("");
  const bool apply = content_type.find("application/apply-patch") == 0;
  const bool json_patch = content_type.find("application/json-patch+json") == 0;
  const bool merge = content_type.find("application/merge-patch+json") == 0;
  const bool strategic = content_type.find("application/strategic-merge-patch+json") == 0;
  if (!apply && !json_patch && !merge && !strategic) {
    throw ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: "
                                                "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  }
  if (strategic && t.type.custom) {
    throw ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: "
                                                "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  }
  if (apply && req.QueryParam("fieldManager").value_or("").empty()) {
    throw BadRequest("PATCH, application/apply-patch+yaml requires the fieldManager parameter");
  }
  const json patch = ParseBody(req);
  const FieldValidation validation = FieldValidationOf(req);
  if (apply) CheckApplyPatch(t.type, patch, t.namespace_name, t.name);
  std::vector<std::string> warnings;
  bool created = false;
  auto stored = store_.Transact([&](ObjectStore::Txn& txn) -> ObjectPtr {
    ObjectPtr current = txn.Get(t.type.GroupResource(), t.namespace_name, t.name);
    if (!current) {
      if (!apply || !t.subresource.empty()) throw NotFound(t.type.plural, t.name, t.type.group);
      json object = patch;
      DecodeCustom(t.type, object, FieldValidation::kIgnore, "", warnings);
      if (!object.contains("metadata") || !object["metadata"].is_object()) object["metadata"] = json::object();
      object["metadata"]["name"] = t.name;
      if (t.type.namespaced) object["metadata"]["namespace"] = t.namespace_name;
      if (req.QueryParam("dryRun")) {
        return std::make_shared<const StoredObject>(PrepareCreateInTxn(txn, t.type, object, &warnings));
      }
      created = true;
      return CreateInTxn(txn, t.type, object, &warnings);
    }
    const json base = t.type.schema ? ReadView(t.type, *current) : *current;
    json patched;
    if (json_patch) {
      patched = ApplyJsonPatch(base, patch);
    } else if (merge) {
      patched = ApplyMergePatch(base, patch);
    } else if (strategic || (apply && !t.type.custom)) {
      patched = ApplyStrategicMergePatch(base, patch);
    } else {
      patched = ApplyMergePatch(base, patch);
    }
    // The patched object is decoded like a request body (pruned, defaulted, unknown fields judged).
    DecodeCustom(t.type, patched, apply ? FieldValidation::kIgnore : validation, "", warnings);
    const std::string patched_rv = meta(patched, "resourceVersion");
    if (!patched_rv.empty() && patched_rv != meta(*current, "resourceVersion")) {
      throw Conflict(t.type.plural, t.name, t.type.group,
                     "the object has been modified; please apply your changes to the latest version and try again");
    }
    if (meta(patched, "name") != t.name) throw BadRequest("metadata.name cannot be changed by a patch");
    return WriteInTxn(txn, t.type, current, patched, t.subresource == "status", req.QueryParam("dryRun").has_value(),
                        &warnings);
  });
  return WithWarnings(JsonResponse(created ? 201 : 200, present(t.type, *stored)), warnings);
}

ObjectPtr ApiServerDouble::Impl::DeleteInTxn(ObjectStore::Txn& txn, const ResourceType& type, const std::string& ns,
                                               const std::string& name, const json& options) {
  ObjectPtr current = txn.Get(type.GroupResource(), ns, name);
  if (!current) throw NotFound(type.plural, name, type.group);
  if (options.is_object() && options.contains("preconditions")) {
    const json& pre = options["preconditions"];
    if (pre.contains("uid") && pre["uid"].is_string() && pre["uid"].get<std::string>() != meta(*current, "uid")) {
      throw Conflict(type.plural, name, type.group,
                     "Precondition failed: UID in precondition: " + pre["uid"].get<std::string>() + ", UID in object meta: " + meta(*current, "uid"));
    }
    if (pre.contains("resourceVersion") && pre["resourceVersion"].is_string() &&
        pre["resourceVersion"].get<std::string>() != meta(*current, "resourceVersion")) {
      throw Conflict(type.plural, name, type.group,
                     "Precondition failed: ResourceVersion in precondition: " + pre["resourceVersion"].get<std::string>() +
                         ", ResourceVersion in object meta: " + meta(*current, "resourceVersion"));
    }
  }
  const json& m = (*current)["metadata"];
  if (m.contains("finalizers") && m["finalizers"].is_array() && !m["finalizers"].empty()) {
    if (m.contains("deletionTimestamp")) return current;
    json next = *current;
    next["metadata"]["deletionTimestamp"] = NowRfc3339();
    next["metadata"]["deletionGracePeriodSeconds"] = 0;
    return txn.put(type.GroupResource(), std::move(next));
  }
  if (type.kind == "Namespace") {
    std::vector<ResourceType> types;
    {
      std::shared_lock lock(catalog_mutex_);
      types = catalog_.all();
    }
    for (const auto& ty : types) {
      if (!ty.namespaced || !ty.storage_version) continue;
      for (const auto& o : txn.List(ty.GroupResource(), name)) txn.erase(ty.GroupResource(), name, meta(*o, "name"));
    }
  }
  if (type.kind == "CustomResourceDefinition") {
    const std::string gr = current->value("/spec/names/plural"_json_pointer, std::string()) + "." +
                           current->value("/spec/group"_json_pointer, std::string());
    txn.EraseAll(gr);
    std::unique_lock lock(catalog_mutex_);
    catalog_.RemoveCrd(name);
  }
  ObjectPtr last = txn.erase(type.GroupResource(), ns, name);
  if (type.kind == "Pod") RefreshPdbsInTxn(txn, ns);
  return last;
}

net::HttpResponse ApiServerDouble::Impl::DeleteObject(const net::HttpRequest& req, const Target& t) {
  const json options = req.body.empty() ? json::object() : ParseBody(req);
  if (req.QueryParam("dryRun")) {
    auto current = store_.Transact([&](ObjectStore::Txn& txn) { return txn.Get(t.type.GroupResource(), t.namespace_name, t.name); });
    if (!current) throw NotFound(t.type.plural, t.name, t.type.group);
    return JsonResponse(200, present(t.type, *current));
  }
  auto last = store_.Transact([&](ObjectStore::Txn& txn) { return DeleteInTxn(txn, t.type, t.namespace_name, t.name, options); });
  return JsonResponse(200, present(t.type, *last));
}

net::HttpResponse ApiServerDouble::Impl::DeleteCollection(const net::HttpRequest& req, const Target& t) {
  const LabelSelector labels = LabelSelector::Parse(req.QueryParam("labelSelector").value_or(""));
  const FieldSelector fields = FieldSelector::Parse(req.QueryParam("fieldSelector").value_or(""), t.type.kind);
  json deleted = json::array();
  store_.Transact([&](ObjectStore::Txn& txn) {
    for (const auto& o : txn.List(t.type.GroupResource(), t.namespace_name)) {
      const json lbls = o->contains("/metadata/labels"_json_pointer) ? (*o)["/metadata/labels"_json_pointer] : json::object();
      if (!labels.matches(lbls) || !fields.matches(*o)) continue;
      deleted.push_back(present(t.type, *DeleteInTxn(txn, t.type, meta(*o, "namespace"), meta(*o, "name"), json::object())));
    }
    return 0;
  });
  return JsonResponse(200, {{"kind", t.type.kind + "List"},
                             {"apiVersion", t.type.ApiVersion()},
                             {"metadata", {{"resourceVersion", std::to_string(store_.CurrentRv())}}},
                             {"items", deleted}});
}

}  // namespace gangplank::apiserver_double
