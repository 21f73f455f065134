// Internals of ApiServerDouble shared by its source files (lifecycle, REST handlers, watches, pod
// subresources, discovery). Not part of the public interface.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "apiserver-double/api_error.h"
#include "apiserver-double/api_server_double.h"
#include "apiserver-double/object_store.h"
#include "apiserver-double/resource_catalog.h"
#include "apiserver-double/timer_queue.h"
#include "net/http_server.h"

namespace gangplank::apiserver_double {

// Where a request points after parsing the REST path.
struct Target {
  ResourceType type;
  std::string namespace_name;  // empty for cluster-scoped or all-namespaces
  std::string name;            // empty for collections
  std::string subresource;     // "", "status", "binding", "eviction"
};

class WatchSession;

// ?fieldValidation= on writes: what happens to fields the schema does not know (default Warn).
enum class FieldValidation { kIgnore, kWarn, kStrict };

class ApiServerDouble::Impl {
 public:
  explicit Impl(DoubleOptions options);
  ~Impl();

  // lifecycle (api_server_double.cc)
  void Start();
  void Stop();
  bool running() const;
  uint16_t port() const { return port_; }
  std::string url() const;

  // public state access (api_server_double.cc)
  nlohmann::json PutObject(const nlohmann::json& object);
  ResourceType TypeForObject(const nlohmann::json& object) const;
  ResourceType TypeForGroupResource(const std::string& gr) const;

  // faults (api_server_double.cc)
  void FailNext(FaultRule rule);
  void ClearFaults();
  void SetDelay(std::chrono::milliseconds delay);
  void DropWatches();
  void Compact();
  std::size_t OpenWatches() const;
  std::size_t RequestCount() const { return requests_.load(); }

  ObjectStore& store() { return store_; }
  const DoubleOptions& options() const { return options_; }

  // request handling
  void Handle(const net::HttpRequest& request, net::HttpResponder responder);
  net::HttpResponse Serve(const net::HttpRequest& request, net::HttpResponder& responder);  // rest_handlers.cc
  net::HttpResponse control(const net::HttpRequest& request);                             // api_server_double.cc
  std::optional<net::HttpResponse> discovery(const net::HttpRequest& request) const;      // discovery.cc
  std::optional<Target> ParseTarget(const std::string& path) const;                      // rest_handlers.cc

  // REST verbs (rest_handlers.cc)
  net::HttpResponse GetObject(const net::HttpRequest& req, const Target& t);
  net::HttpResponse ListObjects(const net::HttpRequest& req, const Target& t);
  net::HttpResponse CreateObject(const net::HttpRequest& req, const Target& t);
  net::HttpResponse UpdateObject(const net::HttpRequest& req, const Target& t);
  net::HttpResponse PatchObject(const net::HttpRequest& req, const Target& t);
  net::HttpResponse DeleteObject(const net::HttpRequest& req, const Target& t);
  net::HttpResponse DeleteCollection(const net::HttpRequest& req, const Target& t);

  // Shared write path: stores `object` as the new state of an existing or new object, applying the
  // status-subresource, generation and no-op rules. Called inside a store transaction.
  // With dry_run the result is computed and returned but nothing is stored (?dryRun=All).
  // Custom resources are validated against their schema here (422), ratcheting warnings go to `warnings`.
  ObjectPtr WriteInTxn(ObjectStore::Txn& txn, const ResourceType& type, const ObjectPtr& current,
                         nlohmann::json desired, bool status_write, bool dry_run = false,
                         std::vector<std::string>* warnings = nullptr);
  ObjectPtr CreateInTxn(ObjectStore::Txn& txn, const ResourceType& type, nlohmann::json object,
                          std::vector<std::string>* warnings = nullptr);
  // What create_in_txn checks and fills in before storing (namespace, server metadata, schema and
  // built-in admission, initial status), without storing it: also the whole of a dryRun create.
  nlohmann::json PrepareCreateInTxn(ObjectStore::Txn& txn, const ResourceType& type, nlohmann::json object,
                                       std::vector<std::string>* warnings = nullptr);
  ObjectPtr DeleteInTxn(ObjectStore::Txn& txn, const ResourceType& type, const std::string& ns,
                          const std::string& name, const nlohmann::json& options);
  // Keeps PDB status current after pods or PDBs in `ns` change (pod_subresources.cc).
  void RefreshPdbsInTxn(ObjectStore::Txn& txn, const std::string& ns);
  static nlohmann::json PdbStatus(const nlohmann::json& pdb, const std::vector<ObjectPtr>& pods);

  // custom resources and their CRD schemas (custom_resources.cc)
  static FieldValidation FieldValidationOf(const net::HttpRequest& req);
  // Decodes a custom resource as kube-apiserver does (prune, default); unknown fields are refused
  // (400 "<strict_prefix>strict decoding error: ...") or become warnings per `mode`.
  static void DecodeCustom(const ResourceType& type, nlohmann::json& object, FieldValidation mode,
                            const std::string& strict_prefix, std::vector<std::string>& warnings);
  // Server-side apply checks the patch against the schema first: an undeclared field is a 500
  // "failed to create typed patch object", whatever fieldValidation says.
  static void CheckApplyPatch(const ResourceType& type, const nlohmann::json& patch, const std::string& ns,
                                const std::string& name);
  // Throws the 422 Invalid of a custom resource's new state (old = stored state on update, else null).
  static void ValidateCustom(const ResourceType& type, const nlohmann::json& object, const nlohmann::json* old,
                              std::vector<std::string>* warnings);
  // A stored custom resource as a read returns it: defaulted per the served version's schema.
  static nlohmann::json ReadView(const ResourceType& type, const nlohmann::json& stored);
  static net::HttpResponse WithWarnings(net::HttpResponse response, const std::vector<std::string>& warnings);

  // pod subresources (pod_subresources.cc)
  net::HttpResponse BindPod(const net::HttpRequest& req, const Target& t);
  net::HttpResponse EvictPod(const net::HttpRequest& req, const Target& t);

  // watches (watch_handler.cc)
  void StartWatch(const net::HttpRequest& req, const Target& t, net::HttpResponder& responder);
  void ForgetSession(const std::shared_ptr<WatchSession>& session);
  // Replays the next slice of a watch's backlog when its client has read the previous one (timer thread).
  void PumpCatchUp(const std::weak_ptr<WatchSession>& weak);

  // helpers
  nlohmann::json present(const ResourceType& type, const nlohmann::json& object) const;
  std::string NewUid();
  static std::string NowRfc3339();
  static bool WantsTable(const net::HttpRequest& req);
  static net::HttpResponse JsonResponse(int status, const nlohmann::json& body);
  static net::HttpResponse ErrorResponse(const ApiError& error);
  static nlohmann::json ParseBody(const net::HttpRequest& req);

  TimerQueue& timers() { return *timers_; }

 private:
  DoubleOptions options_;
  mutable std::shared_mutex catalog_mutex_;
  ResourceCatalog catalog_;
  ObjectStore store_;
  std::unique_ptr<TimerQueue> timers_;
  // Cleared (under its mutex) before the timer thread goes away; stream callbacks that HTTP threads may
  // run during or after teardown check it before posting work.
  struct Liveness {
    std::mutex mutex;
    bool alive = true;
  };
  std::shared_ptr<Liveness> liveness_ = std::make_shared<Liveness>();
  std::unique_ptr<net::HttpServer> server_;
  uint16_t port_ = 0;

  std::mutex random_mutex_;
  std::mt19937_64 random_;

  mutable std::mutex fault_mutex_;
  std::vector<FaultRule> faults_;
  std::chrono::milliseconds delay_{0};

  mutable std::mutex sessions_mutex_;
  std::set<std::shared_ptr<WatchSession>> sessions_;

  std::atomic<std::size_t> requests_{0};
  mutable std::mutex recorded_mutex_;
  std::vector<RecordedRequest> recorded_;  // only with options_.record_requests

  friend class WatchSession;
  friend class ApiServerDouble;
  std::optional<FaultRule> TakeFault(const net::HttpRequest& req);
  const ResourceCatalog& catalog() const { return catalog_; }
  ResourceCatalog& catalog() { return catalog_; }
  std::shared_mutex& catalog_mutex() const { return catalog_mutex_; }
  std::set<std::shared_ptr<WatchSession>> SessionsSnapshot() const;
  void RegisterSession(const std::shared_ptr<WatchSession>& session);
};

}  // namespace gangplank::apiserver_double
