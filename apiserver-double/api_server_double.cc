// ApiServerDouble: lifecycle, direct state access, fault injection and the request entry point.
#include "apiserver-double/api_server_double.h"

#include <ctime>
#include <fstream>
#include <sstream>

#include "apiserver-double/double_impl.h"
#include "apiserver-double/protobuf_body.h"
#include "apiserver-double/watch_session.h"
#include "apiserver-double/yaml_json.h"

namespace gangplank::apiserver_double {

using nlohmann::json;

ApiServerDouble::Impl::Impl(DoubleOptions options)
    : options_(std::move(options)), store_(options_.history_limit), timers_(std::make_unique<TimerQueue>()),
      random_(std::random_device{}()) {
  port_ = options_.port;
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    put_object({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
}

ApiServerDouble::Impl::~Impl() {
  stop();
  {
    std::lock_guard lock(liveness_->mutex);
    liveness_->alive = false;
  }
  timers_.reset();  // joins the timer thread before the store and sessions go away
}


void ApiServerDouble::Impl::start() {
  if (server_) return;
  net::HttpServerOptions http;
  http.host = options_.host;
  http.port = port_;
  http.max_request_body_bytes = options_.max_request_body_bytes;
  auto server = net::make_http_server(http);
  server->start([this](const net::HttpRequest& req, net::HttpResponder responder) { handle(req, std::move(responder)); });
  port_ = server->port();
  server_ = std::move(server);
}

void ApiServerDouble::Impl::stop() {
  if (!server_) return;
  drop_watches();
  server_->stop();
  server_.reset();
}

bool ApiServerDouble::Impl::running() const { return server_ != nullptr; }

std::string ApiServerDouble::Impl::url() const { return "http://" + options_.host + ":" + std::to_string(port_); }

std::string ApiServerDouble::Impl::new_uid() {
  std::lock_guard lock(random_mutex_);
  const uint64_t a = random_(), b = random_();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0x0fff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string ApiServerDouble::Impl::now_rfc3339() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ResourceType ApiServerDouble::Impl::type_for_object(const json& object) const {
  const std::string api_version = object.value("apiVersion", std::string());
  const std::string kind = object.value("kind", std::string());
  std::shared_lock lock(catalog_mutex_);
  const ResourceType* type = catalog_.find_kind(api_version, kind);
  if (type == nullptr) {
    throw std::invalid_argument("apiserver double: no resource serves apiVersion \"" + api_version + "\" kind \"" + kind + "\"");
  }
  return *type;
}

ResourceType ApiServerDouble::Impl::type_for_group_resource(const std::string& gr) const {
  std::shared_lock lock(catalog_mutex_);
  const ResourceType* type = catalog_.find_group_resource(gr);
  if (type == nullptr) throw std::invalid_argument("apiserver double: unknown resource \"" + gr + "\"");
  return *type;
}

json ApiServerDouble::Impl::put_object(const json& object) {
  if (!object.is_object()) throw std::invalid_argument("apiserver double: an object must be a JSON object");
  const ResourceType type = type_for_object(object);
  json desired = object;
  const std::string name = desired.value("/metadata/name"_json_pointer, std::string());
  if (name.empty()) throw std::invalid_argument("apiserver double: " + type.kind + " without metadata.name");
  std::string ns;
  if (type.namespaced) {
    ns = desired.value("/metadata/namespace"_json_pointer, std::string("default"));
    desired["metadata"]["namespace"] = ns;
  } else if (desired["metadata"].contains("namespace")) {
    desired["metadata"].erase("namespace");
  }
  std::vector<std::string> ignored;
  decode_custom(type, desired, FieldValidation::kIgnore, "", ignored);  // pruned and defaulted like a request
  return *store_.transact([&](ObjectStore::Txn& txn) {
    ObjectPtr current = txn.get(type.group_resource(), ns, name);
    desired["metadata"].erase("resourceVersion");
    ObjectPtr stored = current ? write_in_txn(txn, type, current, desired, false) : create_in_txn(txn, type, desired);
    // Seeding sets status too, even for types with a status subresource (which create and update ignore).
    if (type.has_status && desired.contains("status")) {
      json with_status = *stored;
      with_status["status"] = desired["status"];
      stored = write_in_txn(txn, type, stored, with_status, true);
    }
    return stored;
  });
}

// ---------------------------------------------------------------------------------------------------
// Faults

void ApiServerDouble::Impl::fail_next(FaultRule rule) {
  std::lock_guard lock(fault_mutex_);
  faults_.push_back(std::move(rule));
}

void ApiServerDouble::Impl::clear_faults() {
  std::lock_guard lock(fault_mutex_);
  faults_.clear();
  delay_ = std::chrono::milliseconds(0);
}

void ApiServerDouble::Impl::set_delay(std::chrono::milliseconds delay) {
  std::lock_guard lock(fault_mutex_);
  delay_ = delay;
}

std::optional<FaultRule> ApiServerDouble::Impl::take_fault(const net::HttpRequest& req) {
  const bool is_watch = [&] {
    auto w = req.query_param("watch");
    return w && (*w == "1" || *w == "true" || w->empty());
  }();
  std::lock_guard lock(fault_mutex_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!it->path_contains.empty() && req.path.find(it->path_contains) == std::string::npos) continue;
    if (!it->method.empty() && it->method != req.method) continue;
    if (is_watch && !it->include_watches) continue;
    FaultRule taken = *it;
    if (--it->count <= 0) faults_.erase(it);
    return taken;
  }
  return std::nullopt;
}

std::set<std::shared_ptr<WatchSession>> ApiServerDouble::Impl::sessions_snapshot() const {
  std::lock_guard lock(sessions_mutex_);
  return sessions_;
}

void ApiServerDouble::Impl::register_session(const std::shared_ptr<WatchSession>& session) {
  std::lock_guard lock(sessions_mutex_);
  sessions_.insert(session);
}

void ApiServerDouble::Impl::forget_session(const std::shared_ptr<WatchSession>& session) {
  std::lock_guard lock(sessions_mutex_);
  sessions_.erase(session);
}

void ApiServerDouble::Impl::drop_watches() {
  for (const auto& session : sessions_snapshot()) session->end();
}

void ApiServerDouble::Impl::compact() { store_.compact(); }

std::size_t ApiServerDouble::Impl::open_watches() const {
  std::lock_guard lock(sessions_mutex_);
  return sessions_.size();
}

// ---------------------------------------------------------------------------------------------------
// Request entry

json ApiServerDouble::Impl::parse_body(const net::HttpRequest& req) {
  if (req.body.empty()) return json::object();
  const std::string type = req.header("content-type").value_or("application/json");
  if (type.rfind(kProtobufContentType, 0) == 0) return decode_protobuf_object(req.body);
  if (type.find("yaml") != std::string::npos) {
    std::vector<json> docs;
    try {
      docs = parse_yaml_documents(req.body);
    } catch (const std::exception& e) {
      throw bad_request(std::string("the request body is not valid YAML: ") + e.what());
    }
    if (docs.size() != 1) throw bad_request("the request body must hold exactly one YAML document");
    return docs.front();
  }
  try {
    return json::parse(req.body);
  } catch (const json::parse_error& e) {
    throw bad_request(std::string("the request body is not valid JSON: ") + e.what());
  }
}

net::HttpResponse ApiServerDouble::Impl::json_response(int status, const json& body) {
  return net::HttpResponse::json(status, body.dump());
}

net::HttpResponse ApiServerDouble::Impl::error_response(const ApiError& error) {
  auto response = json_response(error.code(), error.status());
  if (error.details().is_object() && error.details().contains("retryAfterSeconds")) {
    response.set_header("Retry-After", error.details()["retryAfterSeconds"].dump());
  }
  return response;
}

bool ApiServerDouble::Impl::wants_table(const net::HttpRequest& req) {
  const std::string accept = req.header("accept").value_or("");
  return accept.find("as=Table") != std::string::npos;
}

void ApiServerDouble::Impl::handle(const net::HttpRequest& req, net::HttpResponder responder) {
  ++requests_;
  if (options_.record_requests && req.path.rfind("/_double/", 0) != 0) {
    std::lock_guard lock(recorded_mutex_);
    recorded_.push_back({req.method, req.path, req.query, req.header("user-agent").value_or("")});
  }
  if (req.path.rfind("/_double/", 0) == 0) {
    responder.respond(control(req));
    return;
  }
  if (auto fault = take_fault(req)) {
    const int code = fault->status;
    const std::string reason = code == 429 ? "TooManyRequests" : code == 503 ? "ServiceUnavailable" : code == 504 ? "Timeout" : "InternalError";
    json details = json::object();
    if (fault->retry_after_seconds) details["retryAfterSeconds"] = *fault->retry_after_seconds;
    ApiError error(code, reason, "injected fault: " + reason, details.empty() ? json() : details);
    responder.respond(error_response(error));
    return;
  }
  std::chrono::milliseconds delay;
  {
    std::lock_guard lock(fault_mutex_);
    delay = delay_;
  }
  auto run = [this, req](net::HttpResponder& r) {
    net::HttpResponse response;
    try {
      response = serve(req, r);
    } catch (const ApiError& e) {
      response = error_response(e);
    } catch (const json::exception& e) {
      response = error_response(bad_request(std::string("malformed object: ") + e.what()));
    } catch (const std::exception& e) {
      response = error_response(ApiError(500, "InternalError", std::string("internal error: ") + e.what()));
    }
    if (!r.answered()) r.respond(std::move(response));
  };
  if (delay.count() > 0) {
    auto shared = std::make_shared<net::HttpResponder>(std::move(responder));
    timers_->post_after(delay, [run, shared] { run(*shared); });
  } else {
    run(responder);
  }
}

net::HttpResponse ApiServerDouble::Impl::control(const net::HttpRequest& req) {
  try {
    if (req.path == "/_double/state" && req.method == "GET") {
      return json_response(200, {{"resourceVersion", std::to_string(store_.current_rv())},
                                 {"compactionFloor", std::to_string(store_.compaction_floor())},
                                 {"openWatches", open_watches()},
                                 {"requests", request_count()}});
    }
    if (req.path != "/_double/faults" || req.method != "POST") {
      return json_response(404, not_found("control endpoints", req.path).status());
    }
    const json body = parse_body(req);
    if (body.value("clear", false)) clear_faults();
    if (body.contains("fail")) {
      const json& f = body["fail"];
      FaultRule rule;
      rule.status = f.value("status", 500);
      rule.count = f.value("count", 1);
      rule.path_contains = f.value("pathContains", std::string());
      rule.method = f.value("method", std::string());
      if (f.contains("retryAfterSeconds")) rule.retry_after_seconds = f["retryAfterSeconds"].get<int>();
      rule.include_watches = f.value("includeWatches", true);
      if (rule.status < 400 || rule.status > 599) throw bad_request("fail.status must be an HTTP error code (400-599)");
      if (rule.count < 1) throw bad_request("fail.count must be at least 1");
      fail_next(rule);
    }
    if (body.contains("delayMs")) set_delay(std::chrono::milliseconds(body["delayMs"].get<long>()));
    if (body.value("dropWatches", false)) drop_watches();
    if (body.value("compact", false)) compact();
    return json_response(200, {{"ok", true}, {"resourceVersion", std::to_string(store_.current_rv())}});
  } catch (const ApiError& e) {
    return error_response(e);
  } catch (const json::exception& e) {
    return error_response(bad_request(std::string("bad fault request: ") + e.what()));
  }
}

// ---------------------------------------------------------------------------------------------------
// Public wrapper

ApiServerDouble::ApiServerDouble(DoubleOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
ApiServerDouble::~ApiServerDouble() = default;
void ApiServerDouble::start() { impl_->start(); }
void ApiServerDouble::stop() { impl_->stop(); }
void ApiServerDouble::restart(bool keep_state) {
  impl_->stop();
  if (!keep_state) {
    {
      std::unique_lock lock(impl_->catalog_mutex());
      impl_->catalog() = ResourceCatalog();
    }
    impl_->store().clear();
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      impl_->put_object({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    }
  }
  impl_->start();
}
bool ApiServerDouble::running() const { return impl_->running(); }
uint16_t ApiServerDouble::port() const { return impl_->port(); }
std::string ApiServerDouble::url() const { return impl_->url(); }

std::string ApiServerDouble::kubeconfig_yaml(const std::string& default_namespace) const {
  std::ostringstream out;
  out << "apiVersion: v1\nkind: Config\nclusters:\n- name: double\n  cluster:\n    server: " << url()
      << "\nusers:\n- name: double\n  user:\n    token: double-token\ncontexts:\n- name: double\n  context:\n"
      << "    cluster: double\n    user: double\n    namespace: " << default_namespace << "\ncurrent-context: double\n";
  return out.str();
}

json ApiServerDouble::put(const json& object) { return impl_->put_object(object); }

namespace {

// Flattens one seed document into objects: an object, a List (`kind: List` or a typed list such as
// PodList, whose items may omit apiVersion/kind as API list responses do), or an array of those.
void append_seed_objects(const json& doc, std::vector<json>& out) {
  if (doc.is_array()) {
    for (const auto& item : doc) append_seed_objects(item, out);
    return;
  }
  if (!doc.is_object()) {
    throw std::runtime_error(std::string("expected an object, a List or an array, got a ") + doc.type_name());
  }
  const auto kind = doc.find("kind");
  const bool is_list = kind != doc.end() && kind->is_string() && kind->get<std::string>().ends_with("List") &&
                       doc.contains("items");
  if (!is_list) {
    out.push_back(doc);
    return;
  }
  const json& items = doc["items"];
  if (!items.is_array() && !items.is_null()) throw std::runtime_error("List items must be an array");
  if (items.is_null()) return;
  // A typed list (PodList) names the kind of its items; a plain List's items must carry their own.
  const std::string list_kind = kind->get<std::string>();
  const std::string item_kind = list_kind == "List" ? std::string() : list_kind.substr(0, list_kind.size() - 4);
  for (std::size_t i = 0; i < items.size(); ++i) {
    json item = items[i];
    if (!item.is_object()) {
      throw std::runtime_error("List item " + std::to_string(i + 1) + " is a " + item.type_name() + ", expected an object");
    }
    if (!item_kind.empty()) {
      if (!item.contains("kind")) item["kind"] = item_kind;
      if (!item.contains("apiVersion") && doc.contains("apiVersion")) item["apiVersion"] = doc["apiVersion"];
    }
    append_seed_objects(item, out);
  }
}

}  // namespace

std::size_t ApiServerDouble::seed_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("seed file '" + path + "': cannot open");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<json> docs;
  try {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
      docs.push_back(json::parse(text));
    } else {
      docs = parse_yaml_documents(text);
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("seed file '" + path + "': " + e.what());
  }
  std::vector<json> objects;
  for (std::size_t d = 0; d < docs.size(); ++d) {
    try {
      append_seed_objects(docs[d], objects);
    } catch (const std::exception& e) {
      throw std::runtime_error("seed file '" + path + "', document " + std::to_string(d + 1) + ": " + e.what());
    }
  }
  std::size_t index = 0;
  for (const auto& object : objects) {
    ++index;
    try {
      put(object);
    } catch (const std::exception& e) {
      throw std::runtime_error("seed file '" + path + "', object " + std::to_string(index) + ": " + e.what());
    }
  }
  return objects.size();
}

std::optional<json> ApiServerDouble::get(const std::string& resource, const std::string& namespace_name,
                                         const std::string& name) const {
  const ResourceType type = impl_->type_for_group_resource(resource);
  auto object = impl_->store().transact([&](ObjectStore::Txn& txn) { return txn.get(type.group_resource(), namespace_name, name); });
  if (!object) return std::nullopt;
  return *object;
}

std::vector<json> ApiServerDouble::list(const std::string& resource, const std::string& namespace_name) const {
  const ResourceType type = impl_->type_for_group_resource(resource);
  auto objects = impl_->store().transact([&](ObjectStore::Txn& txn) { return txn.list(type.group_resource(), namespace_name); });
  std::vector<json> out;
  out.reserve(objects.size());
  for (const auto& o : objects) out.push_back(*o);
  return out;
}

bool ApiServerDouble::remove(const std::string& resource, const std::string& namespace_name, const std::string& name) {
  const ResourceType type = impl_->type_for_group_resource(resource);
  return impl_->store().transact([&](ObjectStore::Txn& txn) {
    return txn.erase(type.group_resource(), namespace_name, name) != nullptr;
  });
}

std::string ApiServerDouble::resource_version() const { return std::to_string(impl_->store().current_rv()); }
void ApiServerDouble::fail_next(FaultRule rule) { impl_->fail_next(std::move(rule)); }
void ApiServerDouble::clear_faults() { impl_->clear_faults(); }
void ApiServerDouble::set_response_delay(std::chrono::milliseconds delay) { impl_->set_delay(delay); }
void ApiServerDouble::drop_watches() { impl_->drop_watches(); }
void ApiServerDouble::compact() { impl_->compact(); }
std::size_t ApiServerDouble::open_watches() const { return impl_->open_watches(); }
std::size_t ApiServerDouble::request_count() const { return impl_->request_count(); }

std::vector<RecordedRequest> ApiServerDouble::recorded_requests() const {
  std::lock_guard lock(impl_->recorded_mutex_);
  return impl_->recorded_;
}

}  // namespace gangplank::apiserver_double
