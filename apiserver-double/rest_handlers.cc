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

std::vector<std::string> split_path(const std::string& path) {
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
bool equal_except(const json& a, const json& b, std::initializer_list<const char*> skip) {
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
bool generation_relevant_change(const json& next, const json& cur, bool has_status) {
  return has_status ? !equal_except(next, cur, {"metadata", "apiVersion", "kind", "status"})
                    : !equal_except(next, cur, {"metadata", "apiVersion", "kind"});
}

// Whether a write changes anything at all (resourceVersion and managedFields aside).
bool same_object(const json& next, const json& cur) {
  if (!equal_except(next, cur, {"metadata"})) return false;
  static const json empty = json::object();
  const json& a = next.contains("metadata") ? next["metadata"] : empty;
  const json& b = cur.contains("metadata") ? cur["metadata"] : empty;
  return equal_except(a, b, {"resourceVersion", "managedFields"});
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
    if (p == nullptr || c == 0) throw bad_request("continue token is not valid base64");
    val = (val << 6) + static_cast<int>(p - kB64);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

long long unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::optional<Target> ApiServerDouble::Impl::parse_target(const std::string& path) const {
  const auto parts = split_path(path);
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
  json copy = read_view(type, object);  // defaulted on every read, as the apiserver does
  copy["apiVersion"] = type.api_version();
  return copy;
}

namespace {

// The 400 a create or update body with unknown fields gets under fieldValidation=Strict starts so.
std::string cannot_handle(const ResourceType& type) {
  return type.kind + " in version \"" + type.version + "\" cannot be handled as a " + type.kind + ": ";
}

}  // namespace

net::HttpResponse ApiServerDouble::Impl::serve(const net::HttpRequest& req, net::HttpResponder& responder) {
  if (auto d = discovery(req)) return *d;
  if (req.path == "/healthz" || req.path == "/readyz" || req.path == "/livez") return net::HttpResponse::text(200, "ok");
  auto target = parse_target(req.path);
  if (!target) {
    return json_response(404, ApiError(404, "NotFound", "the server could not find the requested resource").status());
  }
  const Target& t = *target;
  const bool allowed_sub = t.subresource.empty() || (t.subresource == "status" && t.type.has_status) ||
                           std::find(t.type.extra_subresources.begin(), t.type.extra_subresources.end(), t.subresource) !=
                               t.type.extra_subresources.end();
  if (!allowed_sub) throw ApiError(404, "NotFound", "the server could not find the requested resource");
  const std::string& m = req.method;
  if (t.subresource == "binding") {
    if (m != "POST") throw ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    return bind_pod(req, t);
  }
  if (t.subresource == "eviction") {
    if (m != "POST") throw ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    return evict_pod(req, t);
  }
  if (t.name.empty()) {
    if (m == "GET") {
      auto watch = req.query_param("watch");
      if (watch && (*watch == "1" || *watch == "true" || watch->empty())) {
        start_watch(req, t, responder);
        return {};
      }
      return list_objects(req, t);
    }
    if (m == "POST") return create_object(req, t);
    if (m == "DELETE") return delete_collection(req, t);
  } else {
    if (m == "GET") return get_object(req, t);
    if (m == "PUT") return update_object(req, t);
    if (m == "PATCH") return patch_object(req, t);
    if (m == "DELETE" && t.subresource.empty()) return delete_object(req, t);
  }
  throw ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

net::HttpResponse ApiServerDouble::Impl::get_object(const net::HttpRequest& req, const Target& t) {
  auto object = store_.transact([&](ObjectStore::Txn& txn) { return txn.get(t.type.group_resource(), t.namespace_name, t.name); });
  if (!object) throw not_found(t.type.plural, t.name, t.type.group);
  if (wants_table(req)) {
    return json_response(200, make_table(t.type, {present(t.type, *object)}, {{"resourceVersion", meta(*object, "resourceVersion")}},
                                         include_object_param(req.query_param("includeObject"))));
  }
  return json_response(200, present(t.type, *object));
}

net::HttpResponse ApiServerDouble::Impl::list_objects(const net::HttpRequest& req, const Target& t) {
  const LabelSelector labels = LabelSelector::parse(req.query_param("labelSelector").value_or(""));
  const FieldSelector fields = FieldSelector::parse(req.query_param("fieldSelector").value_or(""), t.type.kind);
  long limit = 0;
  if (auto l = req.query_param("limit"); l && !l->empty()) {
    try {
      limit = std::stol(*l);
    } catch (const std::exception&) {
      throw bad_request("invalid limit \"" + *l + "\"");
    }
  }
  const std::string rv_text = req.query_param("resourceVersion").value_or("");
  const std::string match = req.query_param("resourceVersionMatch").value_or("");
  const std::string token = req.query_param("continue").value_or("");
  if (!match.empty() && rv_text.empty()) {
    throw bad_request("resourceVersionMatch is forbidden unless resourceVersion is provided");
  }
  if (!match.empty() && match != "Exact" && match != "NotOlderThan") {
    throw bad_request("resourceVersionMatch \"" + match + "\" is not one of Exact, NotOlderThan");
  }
  std::optional<uint64_t> snapshot;
  std::string start_after;
  if (!token.empty()) {
    if (!rv_text.empty() && rv_text != "0") throw bad_request("specifying resource version is not allowed when using continue");
    json decoded;
    try {
      decoded = json::parse(unbase64(token));
      snapshot = decoded.at("rv").get<uint64_t>();
      start_after = decoded.at("start").get<std::string>();
    } catch (const ApiError&) {
      throw;
    } catch (const std::exception&) {
      throw bad_request("continue key is not valid: malformed token");
    }
    const long long issued = decoded.value("t", 0LL);
    if (unix_now() - issued > options_.continue_token_ttl.count()) {
      throw ApiError(410, "Expired", "The provided continue parameter is too old to display a consistent list result. "
                                     "You can start a new list without the continue parameter.");
    }
  } else if (!rv_text.empty() && rv_text != "0") {
    const uint64_t wanted = parse_rv(rv_text);
    if (match == "Exact" || (match.empty() && limit > 0)) {
      snapshot = wanted;
    } else if (wanted > store_.current_rv()) {
      throw ApiError(504, "Timeout", "Too large resource version: " + rv_text + ", current: " + std::to_string(store_.current_rv()),
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
  const auto result = store_.list_page(t.type.group_resource(), t.namespace_name, snapshot, start_after,
                                       limit > 0 ? static_cast<std::size_t>(limit) : 0, matcher);
  const uint64_t snapshot_rv = result.rv;
  const std::vector<ObjectPtr>& page = result.items;
  const std::string& next_start = result.next_start;
  const long remaining = result.remaining;
  json list_meta = {{"resourceVersion", std::to_string(snapshot_rv)}};
  if (!next_start.empty()) {
    list_meta["continue"] = base64(json{{"rv", snapshot_rv}, {"start", next_start}, {"t", unix_now()}}.dump());
    if (!filtered) list_meta["remainingItemCount"] = remaining;
  }
  if (wants_table(req)) {
    std::vector<json> items;
    items.reserve(page.size());
    for (const auto& o : page) items.push_back(present(t.type, *o));
    return json_response(200, make_table(t.type, items, list_meta, include_object_param(req.query_param("includeObject"))));
  }
  // Assembled as text: re-building a json tree of 100k objects only to dump it would double the work.
  std::string body = "{\"kind\":" + json(t.type.kind + "List").dump() + ",\"apiVersion\":" + json(t.type.api_version()).dump() +
                     ",\"metadata\":" + list_meta.dump() + ",\"items\":[";
  bool first = true;
  for (const auto& o : page) {
    if (!first) body.push_back(',');
    first = false;
    body += t.type.custom ? present(t.type, *o).dump() : stored_text(o);
  }
  body += "]}";
  return net::HttpResponse::json(200, std::move(body));
}

json ApiServerDouble::Impl::prepare_create_in_txn(ObjectStore::Txn& txn, const ResourceType& type, json object,
                                                  std::vector<std::string>* warnings) {
  const std::string ns = meta(object, "namespace");
  const std::string name = meta(object, "name");
  if (txn.get(type.group_resource(), ns, name)) throw already_exists(type.plural, name, type.group);
  if (type.namespaced && options_.require_namespace && !txn.get("namespaces", "", ns)) {
    throw ApiError(404, "NotFound", "namespaces \"" + ns + "\" not found", object_details(ns, "", "namespaces"));
  }
  if (type.namespaced && txn.get("namespaces", "", ns) &&
      txn.get("namespaces", "", ns)->value("/metadata/deletionTimestamp"_json_pointer, std::string()) != "") {
    throw ApiError(403, "Forbidden", type.plural + " \"" + name + "\" is forbidden: unable to create new content in namespace " +
                                         ns + " because it is being terminated");
  }
  json& m = object["metadata"];
  m["uid"] = new_uid();
  m["creationTimestamp"] = now_rfc3339();
  m["generation"] = 1;
  m.erase("resourceVersion");
  m.erase("deletionTimestamp");
  m.erase("selfLink");
  object["apiVersion"] = type.api_version();
  object["kind"] = type.kind;
  if (type.custom && type.has_status) object.erase("status");
  validate_custom(type, object, nullptr, warnings);
  builtin::admit(type, object, nullptr, txn);
  if (type.kind == "Pod") {
    if (!object.contains("status") || !object["status"].is_object()) object["status"] = json::object();
    if (!object["status"].contains("phase")) object["status"]["phase"] = "Pending";
  } else if (type.kind == "Namespace") {
    object["status"] = {{"phase", "Active"}};
  } else if (type.kind == "PodDisruptionBudget") {
    object["status"] = pdb_status(object, txn.list("pods", ns));
  }
  return object;
}

ObjectPtr ApiServerDouble::Impl::create_in_txn(ObjectStore::Txn& txn, const ResourceType& type, json object,
                                               std::vector<std::string>* warnings) {
  object = prepare_create_in_txn(txn, type, std::move(object), warnings);
  const std::string ns = meta(object, "namespace");
  if (type.kind == "CustomResourceDefinition") {
    std::unique_lock lock(catalog_mutex_);
    catalog_.install_crd(object);
    const std::string now = now_rfc3339();
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
  ObjectPtr stored = txn.put(type.group_resource(), std::move(object));
  if (type.kind == "Pod") refresh_pdbs_in_txn(txn, ns);
  return stored;
}

ObjectPtr ApiServerDouble::Impl::write_in_txn(ObjectStore::Txn& txn, const ResourceType& type, const ObjectPtr& current,
                                              json desired, bool status_write, bool dry_run,
                                              std::vector<std::string>* warnings) {
  // A custom resource is compared and validated against its stored state as a read returns it (defaulted).
  const json cur_view = type.schema ? read_view(type, *current) : json();
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
  const bool spec_changed = generation_relevant_change(next, cur, type.has_status);
  next["metadata"]["generation"] = spec_changed ? generation + 1 : generation;
  if (type.kind == "PodDisruptionBudget") {
    next["status"] = pdb_status(next, txn.list("pods", meta(cur, "namespace")));
    next["status"]["observedGeneration"] = next["metadata"]["generation"];
  }
  validate_custom(type, next, &cur, warnings);  // the whole object, on /status writes too
  if (!status_write) builtin::admit(type, next, &cur, txn);
  if (same_object(next, cur)) return current;  // no-op writes do not bump resourceVersion
  if (type.kind == "CustomResourceDefinition" && !status_write) {
    if (next.value("/spec/scope"_json_pointer, std::string()) != cur.value("/spec/scope"_json_pointer, std::string())) {
      throw invalid(type.kind, meta(cur, "name"), "spec.scope", "Invalid value: \"" +
                    next.value("/spec/scope"_json_pointer, std::string()) + "\": field is immutable");
    }
    ResourceCatalog::validate_crd(next);
    if (!dry_run) {
      std::unique_lock lock(catalog_mutex_);
      catalog_.install_crd(next);
    }
  }
  if (dry_run) return std::make_shared<const StoredObject>(std::move(next));
  if (cur["metadata"].contains("deletionTimestamp") &&
      (!next["metadata"].contains("finalizers") || next["metadata"]["finalizers"].empty())) {
    return txn.erase(type.group_resource(), meta(cur, "namespace"), meta(cur, "name"));
  }
  ObjectPtr stored = txn.put(type.group_resource(), std::move(next));
  if (type.kind == "Pod") refresh_pdbs_in_txn(txn, meta(cur, "namespace"));
  return stored;
}

net::HttpResponse ApiServerDouble::Impl::create_object(const net::HttpRequest& req, const Target& t) {
  json object = parse_body(req);
  if (!object.is_object()) throw bad_request("the request body must be a JSON object");
  const std::string kind = object.value("kind", std::string());
  if (!kind.empty() && kind != t.type.kind) {
    throw bad_request("the kind in the body (" + kind + ") does not match the resource (" + t.type.kind + ")");
  }
  const std::string api_version = object.value("apiVersion", std::string());
  if (!api_version.empty() && api_version != t.type.api_version()) {
    throw bad_request("the API version in the data (" + api_version + ") does not match the expected API version (" +
                      t.type.api_version() + ")");
  }
  std::vector<std::string> warnings;
  decode_custom(t.type, object, field_validation(req), cannot_handle(t.type), warnings);
  if (!object.contains("metadata") || !object["metadata"].is_object()) object["metadata"] = json::object();
  json& m = object["metadata"];
  if (t.type.namespaced) {
    const std::string body_ns = meta(object, "namespace");
    if (!body_ns.empty() && body_ns != t.namespace_name) {
      throw bad_request("the namespace of the provided object does not match the namespace sent on the request");
    }
    if (t.namespace_name.empty()) throw bad_request("a namespaced resource must be created within a namespace");
    m["namespace"] = t.namespace_name;
  }
  if (meta(object, "name").empty()) {
    const std::string prefix = meta(object, "generateName");
    if (prefix.empty()) throw invalid(t.type.kind, "", "metadata.name", "Required value: name or generateName is required");
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string suffix;
    {
      std::lock_guard lock(random_mutex_);
      for (int i = 0; i < 5; ++i) suffix.push_back(alphabet[random_() % 27]);
    }
    m["name"] = prefix + suffix;
  }
  if (t.type.kind == "CustomResourceDefinition") ResourceCatalog::validate_crd(object);
  if (req.query_param("dryRun")) {
    // Everything a create checks and defaults (namespace, name, schema, built-in rules), nothing stored.
    json prepared = store_.transact([&](ObjectStore::Txn& txn) { return prepare_create_in_txn(txn, t.type, object, &warnings); });
    return with_warnings(json_response(201, present(t.type, prepared)), warnings);
  }
  auto stored = store_.transact([&](ObjectStore::Txn& txn) { return create_in_txn(txn, t.type, object, &warnings); });
  return with_warnings(json_response(201, present(t.type, *stored)), warnings);
}

net::HttpResponse ApiServerDouble::Impl::update_object(const net::HttpRequest& req, const Target& t) {
  json object = parse_body(req);
  if (!object.is_object() || !object.contains("metadata")) throw bad_request("the request body must be an object with metadata");
  if (meta(object, "name") != t.name) {
    throw bad_request("the name of the object (" + meta(object, "name") + ") does not match the name on the URL (" + t.name + ")");
  }
  if (t.type.namespaced && !meta(object, "namespace").empty() && meta(object, "namespace") != t.namespace_name) {
    throw bad_request("the namespace of the provided object does not match the namespace sent on the request");
  }
  std::vector<std::string> warnings;
  decode_custom(t.type, object, field_validation(req), cannot_handle(t.type), warnings);
  const std::string rv = meta(object, "resourceVersion");
  auto stored = store_.transact([&](ObjectStore::Txn& txn) {
    ObjectPtr current = txn.get(t.type.group_resource(), t.namespace_name, t.name);
    if (!current) throw not_found(t.type.plural, t.name, t.type.group);
    if (!rv.empty() && rv != meta(*current, "resourceVersion")) {
      throw conflict(t.type.plural, t.name, t.type.group,
                     "the object has been modified; please apply your changes to the latest version and try again");
    }
    return write_in_txn(txn, t.type, current, object, t.subresource == "status", req.query_param("dryRun").has_value(),
                        &warnings);
  });
  return with_warnings(json_response(200, present(t.type, *stored)), warnings);
}

net::HttpResponse ApiServerDouble::Impl::patch_object(const net::HttpRequest& req, const Target& t) {
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
  if (apply && req.query_param("fieldManager").value_or("").empty()) {
    throw bad_request("PATCH, application/apply-patch+yaml requires the fieldManager parameter");
  }
  const json patch = parse_body(req);
  const FieldValidation validation = field_validation(req);
  if (apply) check_apply_patch(t.type, patch, t.namespace_name, t.name);
  std::vector<std::string> warnings;
  bool created = false;
  auto stored = store_.transact([&](ObjectStore::Txn& txn) -> ObjectPtr {
    ObjectPtr current = txn.get(t.type.group_resource(), t.namespace_name, t.name);
    if (!current) {
      if (!apply || !t.subresource.empty()) throw not_found(t.type.plural, t.name, t.type.group);
      json object = patch;
      decode_custom(t.type, object, FieldValidation::kIgnore, "", warnings);
      if (!object.contains("metadata") || !object["metadata"].is_object()) object["metadata"] = json::object();
      object["metadata"]["name"] = t.name;
      if (t.type.namespaced) object["metadata"]["namespace"] = t.namespace_name;
      if (req.query_param("dryRun")) {
        return std::make_shared<const StoredObject>(prepare_create_in_txn(txn, t.type, object, &warnings));
      }
      created = true;
      return create_in_txn(txn, t.type, object, &warnings);
    }
    const json base = t.type.schema ? read_view(t.type, *current) : *current;
    json patched;
    if (json_patch) {
      patched = apply_json_patch(base, patch);
    } else if (merge) {
      patched = apply_merge_patch(base, patch);
    } else if (strategic || (apply && !t.type.custom)) {
      patched = apply_strategic_merge_patch(base, patch);
    } else {
      patched = apply_merge_patch(base, patch);
    }
    // The patched object is decoded like a request body (pruned, defaulted, unknown fields judged).
    decode_custom(t.type, patched, apply ? FieldValidation::kIgnore : validation, "", warnings);
    const std::string patched_rv = meta(patched, "resourceVersion");
    if (!patched_rv.empty() && patched_rv != meta(*current, "resourceVersion")) {
      throw conflict(t.type.plural, t.name, t.type.group,
                     "the object has been modified; please apply your changes to the latest version and try again");
    }
    if (meta(patched, "name") != t.name) throw bad_request("metadata.name cannot be changed by a patch");
    return write_in_txn(txn, t.type, current, patched, t.subresource == "status", req.query_param("dryRun").has_value(),
                        &warnings);
  });
  return with_warnings(json_response(created ? 201 : 200, present(t.type, *stored)), warnings);
}

ObjectPtr ApiServerDouble::Impl::delete_in_txn(ObjectStore::Txn& txn, const ResourceType& type, const std::string& ns,
                                               const std::string& name, const json& options) {
  ObjectPtr current = txn.get(type.group_resource(), ns, name);
  if (!current) throw not_found(type.plural, name, type.group);
  if (options.is_object() && options.contains("preconditions")) {
    const json& pre = options["preconditions"];
    if (pre.contains("uid") && pre["uid"].is_string() && pre["uid"].get<std::string>() != meta(*current, "uid")) {
      throw conflict(type.plural, name, type.group,
                     "Precondition failed: UID in precondition: " + pre["uid"].get<std::string>() + ", UID in object meta: " + meta(*current, "uid"));
    }
    if (pre.contains("resourceVersion") && pre["resourceVersion"].is_string() &&
        pre["resourceVersion"].get<std::string>() != meta(*current, "resourceVersion")) {
      throw conflict(type.plural, name, type.group,
                     "Precondition failed: ResourceVersion in precondition: " + pre["resourceVersion"].get<std::string>() +
                         ", ResourceVersion in object meta: " + meta(*current, "resourceVersion"));
    }
  }
  const json& m = (*current)["metadata"];
  if (m.contains("finalizers") && m["finalizers"].is_array() && !m["finalizers"].empty()) {
    if (m.contains("deletionTimestamp")) return current;
    json next = *current;
    next["metadata"]["deletionTimestamp"] = now_rfc3339();
    next["metadata"]["deletionGracePeriodSeconds"] = 0;
    return txn.put(type.group_resource(), std::move(next));
  }
  if (type.kind == "Namespace") {
    std::vector<ResourceType> types;
    {
      std::shared_lock lock(catalog_mutex_);
      types = catalog_.all();
    }
    for (const auto& ty : types) {
      if (!ty.namespaced || !ty.storage_version) continue;
      for (const auto& o : txn.list(ty.group_resource(), name)) txn.erase(ty.group_resource(), name, meta(*o, "name"));
    }
  }
  if (type.kind == "CustomResourceDefinition") {
    const std::string gr = current->value("/spec/names/plural"_json_pointer, std::string()) + "." +
                           current->value("/spec/group"_json_pointer, std::string());
    txn.erase_all(gr);
    std::unique_lock lock(catalog_mutex_);
    catalog_.remove_crd(name);
  }
  ObjectPtr last = txn.erase(type.group_resource(), ns, name);
  if (type.kind == "Pod") refresh_pdbs_in_txn(txn, ns);
  return last;
}

net::HttpResponse ApiServerDouble::Impl::delete_object(const net::HttpRequest& req, const Target& t) {
  const json options = req.body.empty() ? json::object() : parse_body(req);
  if (req.query_param("dryRun")) {
    auto current = store_.transact([&](ObjectStore::Txn& txn) { return txn.get(t.type.group_resource(), t.namespace_name, t.name); });
    if (!current) throw not_found(t.type.plural, t.name, t.type.group);
    return json_response(200, present(t.type, *current));
  }
  auto last = store_.transact([&](ObjectStore::Txn& txn) { return delete_in_txn(txn, t.type, t.namespace_name, t.name, options); });
  return json_response(200, present(t.type, *last));
}

net::HttpResponse ApiServerDouble::Impl::delete_collection(const net::HttpRequest& req, const Target& t) {
  const LabelSelector labels = LabelSelector::parse(req.query_param("labelSelector").value_or(""));
  const FieldSelector fields = FieldSelector::parse(req.query_param("fieldSelector").value_or(""), t.type.kind);
  json deleted = json::array();
  store_.transact([&](ObjectStore::Txn& txn) {
    for (const auto& o : txn.list(t.type.group_resource(), t.namespace_name)) {
      const json lbls = o->contains("/metadata/labels"_json_pointer) ? (*o)["/metadata/labels"_json_pointer] : json::object();
      if (!labels.matches(lbls) || !fields.matches(*o)) continue;
      deleted.push_back(present(t.type, *delete_in_txn(txn, t.type, meta(*o, "namespace"), meta(*o, "name"), json::object())));
    }
    return 0;
  });
  return json_response(200, {{"kind", t.type.kind + "List"},
                             {"apiVersion", t.type.api_version()},
                             {"metadata", {{"resourceVersion", std::to_string(store_.current_rv())}}},
                             {"items", deleted}});
}

}  // namespace gangplank::apiserver_double
