// ApiServerDouble: lifecycle, direct state access, fault injection and the request entry point.
#include "apiserver-double/api_server_double.h"

#include <ctime>
#include <fstream>
#include <sstream>

#include "apiserver-double/double_impl.h"
#include "apiserver-double/protobuf_body.h"
#include "apiserver-double/watch_session.h"
#include "tests/support/yaml_json.h"

namespace gangplank::apiserver_double {

using nlohmann::json;

ApiServerDouble::Impl::Impl(DoubleOptions options)
    : options_(std::move(options)), store_(options_.history_limit), timers_(std::make_unique<TimerQueue>()),
      random_(std::random_device{}()) {
  port_ = options_.port;
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    PutObject({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  }
}

ApiServerDouble::Impl::~Impl() {
  Stop();
  {
    std::lock_guard lock(liveness_->mutex);
    liveness_->alive = false;
  }
  timers_.reset();  // joins the timer thread before the store and sessions go away
}


void ApiServerDouble::Impl::Start() {
  if (server_) return;
  net::HttpServerOptions http;
  http.host = options_.host;
  http.port = port_;
  http.max_request_body_bytes = options_.max_request_body_bytes;
  auto server = net::MakeHttpServer(http);
  server->Start([this](const net::HttpRequest& req, net::HttpResponder responder) { Handle(req, std::move(responder)); });
  port_ = server->port();
  server_ = std::move(server);
}

void ApiServerDouble::Impl::Stop() {
  if (!server_) return;
  DropWatches();
  server_->Stop();
  server_.reset();
}

bool ApiServerDouble::Impl::running() const { return server_ != nullptr; }

std::string ApiServerDouble::Impl::url() const { return "http://" + options_.host + ":" + std::to_string(port_); }

std::string ApiServerDouble::Impl::NewUid() {
  std::lock_guard lock(random_mutex_);
  const uint64_t a = random_(), b = random_();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0x0fff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string ApiServerDouble::Impl::NowRfc3339() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ResourceType ApiServerDouble::Impl::TypeForObject(const json& object) const {
  const std::string api_version = object.value("apiVersion", std::string());
  const std::string kind = object.value("kind", std::string());
  std::shared_lock lock(catalog_mutex_);
  const ResourceType* type = catalog_.FindKind(api_version, kind);
  if (type == nullptr) {
    throw std::invalid_argument("apiserver double: no resource serves apiVersion \"" + api_version + "\" kind \"" + kind + "\"");
  }
  return *type;
}

ResourceType ApiServerDouble::Impl::TypeForGroupResource(const std::string& gr) const {
  std::shared_lock lock(catalog_mutex_);
  const ResourceType* type = catalog_.FindGroupResource(gr);
  if (type == nullptr) throw std::invalid_argument("apiserver double: unknown resource \"" + gr + "\"");
  return *type;
}

json ApiServerDouble::Impl::PutObject(const json& object) {
  if (!object.is_object()) throw std::invalid_argument("apiserver double: an object must be a JSON object");
  const ResourceType type = TypeForObject(object);
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
  DecodeCustom(type, desired, FieldValidation::kIgnore, "", ignored);  // pruned and defaulted like a request
  return *store_.Transact([&](ObjectStore::Txn& txn) {
    ObjectPtr current = txn.Get(type.GroupResource(), ns, name);
    desired["metadata"].erase("resourceVersion");
    ObjectPtr stored = current ? WriteInTxn(txn, type, current, desired, false) : CreateInTxn(txn, type, desired);
    // Seeding sets status too, even for types with a status subresource (which create and update ignore).
    if (type.has_status && desired.contains("status")) {
      json with_status = *stored;
      with_status["status"] = desired["status"];
      stored = WriteInTxn(txn, type, stored, with_status, true);
    }
    return stored;
  });
}

// ---------------------------------------------------------------------------------------------------
// Faults

void ApiServerDouble::Impl::FailNext(FaultRule rule) {
  std::lock_guard lock(fault_mutex_);
  faults_.push_back(std::move(rule));
}

void ApiServerDouble::Impl::ClearFaults() {
  std::lock_guard lock(fault_mutex_);
  faults_.clear();
  delay_ = std::chrono::milliseconds(0);
}

void ApiServerDouble::Impl::SetDelay(std::chrono::milliseconds delay) {
  std::lock_guard lock(fault_mutex_);
  delay_ = delay;
}

std::optional<FaultRule> ApiServerDouble::Impl::TakeFault(const net::HttpRequest& req) {
  const bool is_watch = [&] {
    auto w = req.QueryParam("watch");
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

std::set<std::shared_ptr<WatchSession>> ApiServerDouble::Impl::SessionsSnapshot() const {
  std::lock_guard lock(sessions_mutex_);
  return sessions_;
}

void ApiServerDouble::Impl::RegisterSession(const std::shared_ptr<WatchSession>& session) {
  std::lock_guard lock(sessions_mutex_);
  sessions_.insert(session);
}

void ApiServerDouble::Impl::ForgetSession(const std::shared_ptr<WatchSession>& session) {
  std::lock_guard lock(sessions_mutex_);
  sessions_.erase(session);
}

void ApiServerDouble::Impl::DropWatches() {
  for (const auto& session : SessionsSnapshot()) session->end();
}

void ApiServerDouble::Impl::Compact() { store_.Compact(); }

std::size_t ApiServerDouble::Impl::OpenWatches() const {
  std::lock_guard lock(sessions_mutex_);
  return sessions_.size();
}

// ---------------------------------------------------------------------------------------------------
// Request entry

json ApiServerDouble::Impl::ParseBody(const net::HttpRequest& req) {
  if (req.body.empty()) return json::object();
  const std::string type = req.header("content-type").value_or("application/json");
  if (type.rfind(kProtobufContentType, 0) == 0) return DecodeProtobufObject(req.body);
  if (type.find("yaml") != std::string::npos) {
    std::vector<json> docs;
    try {
      docs = gangplank::testing::ParseYamlDocuments(req.body);
    } catch (const std::exception& e) {
      throw BadRequest(std::string("the request body is not valid YAML: ") + e.what());
    }
    if (docs.size() != 1) throw BadRequest("the request body must hold exactly one YAML document");
    return docs.front();
  }
  try {
    return json::parse(req.body);
  } catch (const json::parse_error& e) {
    throw BadRequest(std::string("the request body is not valid JSON: ") + e.what());
  }
}

net::HttpResponse ApiServerDouble::Impl::JsonResponse(int status, const json& body) {
  return net::HttpResponse::json(status, body.dump());
}

net::HttpResponse ApiServerDouble::Impl::ErrorResponse(const ApiError& error) {
  auto response = JsonResponse(error.code(), error.status());
  if (error.details().is_object() && error.details().contains("retryAfterSeconds")) {
    response.SetHeader("Retry-After", error.details()["retryAfterSeconds"].dump());
  }
  return response;
}

bool ApiServerDouble::Impl::WantsTable(const net::HttpRequest& req) {
  const std::string accept = req.header("accept").value_or("");
  return accept.find("as=Table") != std::string::npos;
}

void ApiServerDouble::Impl::Handle(const net::HttpRequest& req, net::HttpResponder responder) {
  ++requests_;
  if (options_.record_requests && req.path.rfind("/_double/", 0) != 0) {
    std::lock_guard lock(recorded_mutex_);
    recorded_.push_back({req.method, req.path, req.query, req.header("user-agent").value_or("")});
  }
  if (req.path.rfind("/_double/", 0) == 0) {
    responder.Respond(control(req));
    return;
  }
  if (auto fault = TakeFault(req)) {
    const int code = fault->status;
    const std::string reason = code == 429 ? "TooManyRequests" : code == 503 ? "ServiceUnavailable" : code == 504 ? "Timeout" : "InternalError";
    json details = json::object();
    if (fault->retry_after_seconds) details["retryAfterSeconds"] = *fault->retry_after_seconds;
    ApiError error(code, reason, "injected fault: " + reason, details.empty() ? json() : details);
    responder.Respond(ErrorResponse(error));
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
      response = Serve(req, r);
    } catch (const ApiError& e) {
      response = ErrorResponse(e);
    } catch (const json::exception& e) {
      response = ErrorResponse(BadRequest(std::string("malformed object: ") + e.what()));
    } catch (const std::exception& e) {
      response = ErrorResponse(ApiError(500, "InternalError", std::string("internal error: ") + e.what()));
    }
    if (!r.answered()) r.Respond(std::move(response));
  };
  if (delay.count() > 0) {
    auto shared = std::make_shared<net::HttpResponder>(std::move(responder));
    timers_->PostAfter(delay, [run, shared] { run(*shared); });
  } else {
    run(responder);
  }
}

net::HttpResponse ApiServerDouble::Impl::control(const net::HttpRequest& req) {
  try {
    if (req.path == "/_double/state" && req.method == "GET") {
      return JsonResponse(200, {{"resourceVersion", std::to_string(store_.CurrentRv())},
                                 {"compactionFloor", std::to_string(store_.CompactionFloor())},
                                 {"openWatches", OpenWatches()},
                                 {"requests", RequestCount()}});
    }
    if (req.path != "/_double/faults" || req.method != "POST") {
      return JsonResponse(404, NotFound("control endpoints", req.path).status());
    }
    const json body = ParseBody(req);
    if (body.value("clear", false)) ClearFaults();
    if (body.contains("fail")) {
      const json& f = body["fail"];
      FaultRule rule;
      rule.status = f.value("status", 500);
      rule.count = f.value("count", 1);
      rule.path_contains = f.value("pathContains", std::string());
      rule.method = f.value("method", std::string());
      if (f.contains("retryAfterSeconds")) rule.retry_after_seconds = f["retryAfterSeconds"].get<int>();
      rule.include_watches = f.value("includeWatches", true);
      if (rule.status < 400 || rule.status > 599) throw BadRequest("fail.status must be an HTTP error code (400-599)");
      if (rule.count < 1) throw BadRequest("fail.count must be at least 1");
      FailNext(rule);
    }
    if (body.contains("delayMs")) SetDelay(std::chrono::milliseconds(body["delayMs"].get<long>()));
    if (body.value("dropWatches", false)) DropWatches();
    if (body.value("compact", false)) Compact();
    return JsonResponse(200, {{"ok", true}, {"resourceVersion", std::to_string(store_.CurrentRv())}});
  } catch (const ApiError& e) {
    return ErrorResponse(e);
  } catch (const json::exception& e) {
    return ErrorResponse(BadRequest(std::string("bad fault request: ") + e.what()));
  }
}

// ---------------------------------------------------------------------------------------------------
// Public wrapper

ApiServerDouble::ApiServerDouble(DoubleOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
ApiServerDouble::~ApiServerDouble() = default;
void ApiServerDouble::Start() { impl_->Start(); }
void ApiServerDouble::Stop() { impl_->Stop(); }
void ApiServerDouble::Restart(bool keep_state) {
  impl_->Stop();
  if (!keep_state) {
    {
      std::unique_lock lock(impl_->catalog_mutex());
      impl_->catalog() = ResourceCatalog();
    }
    impl_->store().clear();
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      impl_->PutObject({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    }
  }
  impl_->Start();
}
bool ApiServerDouble::running() const { return impl_->running(); }
uint16_t ApiServerDouble::port() const { return impl_->port(); }
std::string ApiServerDouble::url() const { return impl_->url(); }

std::string ApiServerDouble::KubeconfigYaml(const std::string& default_namespace) const {
  std::ostringstream out;
  out << "apiVersion: v1\nkind: Config\nclusters:\n- name: double\n  cluster:\n    server: " << url()
      << "\nusers:\n- name: double\n  user:\n    token: double-token\ncontexts:\n- name: double\n  context:\n"
      << "    cluster: double\n    user: double\n    namespace: " << default_namespace << "\ncurrent-context: double\n";
  return out.str();
}

json ApiServerDouble::put(const json& object) { return impl_->PutObject(object); }

namespace {

// Flattens one seed document into objects: an object, a List (`kind: List` or a typed list such as
// PodList, whose items may omit apiVersion/kind as API list responses do), or an array of those.
void AppendSeedObjects(const json& doc, std::vector<json>& out) {
  if (doc.is_array()) {
    for (const auto& item : doc) AppendSeedObjects(item, out);
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
    AppendSeedObjects(item, out);
  }
}

}  // namespace

std::size_t ApiServerDouble::SeedFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("seed file '" + path + "': cannot open");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<json> docs;
  try {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
      docs.push_back(json::parse(text));
    } else {
      docs = gangplank::testing::ParseYamlDocuments(text);
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("seed file '" + path + "': " + e.what());
  }
  std::vector<json> objects;
  for (std::size_t d = 0; d < docs.size(); ++d) {
    try {
      AppendSeedObjects(docs[d], objects);
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

std::optional<json> ApiServerDouble::Get(const std::string& resource, const std::string& namespace_name,
                                         const std::string& name) const {
  const ResourceType type = impl_->TypeForGroupResource(resource);
  auto object = impl_->store().Transact([&](ObjectStore::Txn& txn) { return txn.Get(type.GroupResource(), namespace_name, name); });
  if (!object) return std::nullopt;
  return *object;
}

std::vector<json> ApiServerDouble::List(const std::string& resource, const std::string& namespace_name) const {
  const ResourceType type = impl_->TypeForGroupResource(resource);
  auto objects = impl_->store().Transact([&](ObjectStore::Txn& txn) { return txn.List(type.GroupResource(), namespace_name); });
  std::vector<json> out;
  out.reserve(objects.size());
  for (const auto& o : objects) out.push_back(*o);
  return out;
}

bool ApiServerDouble::Remove(const std::string& resource, const std::string& namespace_name, const std::string& name) {
  const ResourceType type = impl_->TypeForGroupResource(resource);
  return impl_->store().Transact([&](ObjectStore::Txn& txn) {
    return txn.erase(type.GroupResource(), namespace_name, name) != nullptr;
  });
}

std::string ApiServerDouble::ResourceVersion() const { return std::to_string(impl_->store().CurrentRv()); }
void ApiServerDouble::FailNext(FaultRule rule) { impl_->FailNext(std::move(rule)); }
void ApiServerDouble::ClearFaults() { impl_->ClearFaults(); }
void ApiServerDouble::SetResponseDelay(std::chrono::milliseconds delay) { impl_->SetDelay(delay); }
void ApiServerDouble::DropWatches() { impl_->DropWatches(); }
void ApiServerDouble::Compact() { impl_->Compact(); }
std::size_t ApiServerDouble::OpenWatches() const { return impl_->OpenWatches(); }
std::size_t ApiServerDouble::RequestCount() const { return impl_->RequestCount(); }

std::vector<RecordedRequest> ApiServerDouble::RecordedRequests() const {
  std::lock_guard lock(impl_->recorded_mutex_);
  return impl_->recorded_;
}

}  // namespace gangplank::apiserver_double
