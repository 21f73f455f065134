// An in-process double of the Kubernetes API server for tests: real REST paths, Status errors, one
// resourceVersion counter, watches with bookmarks and compaction, selectors, patches, status
// subresources, CRDs, pods/binding and PDB-aware pods/eviction. See apiserver-double/README.md.
//
// Typical use in a test:
//   gangplank::apiserver_double::ApiServerDouble server;   // not yet listening
//   server.start();                                         // ephemeral loopback port
//   server.put(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}})"_json);
//   ... point a client at server.url() ...
//   server.fail_next({.status = 429, .count = 3, .retry_after_seconds = 1});
//
// All member functions are thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gangplank::apiserver_double {

struct DoubleOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0 = ephemeral; after a restart the same port is reused
  // Watch history kept for resuming watches and serving snapshot lists; older starts get 410 Expired.
  std::size_t history_limit = 20000;
  // Bookmark period for watches that asked allowWatchBookmarks=true (the apiserver uses ~1 min).
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(60)};
  // Watch duration when the client sends no timeoutSeconds.
  std::chrono::seconds default_watch_timeout{1800};
  // Age after which a list continue token is answered 410 Expired.
  std::chrono::seconds continue_token_ttl{300};
  // Reject creating namespaced objects in a namespace that does not exist (as NamespaceLifecycle does).
  bool require_namespace = true;
  // A watch from a compacted resourceVersion: false = HTTP 410 on the watch request, true = HTTP 200
  // with a single in-stream ERROR event (what the apiserver's watch cache does). Both must be handled.
  bool expired_watch_as_event = false;
  std::size_t max_request_body_bytes = 32u << 20;
  // Keep every request's method, path, query and User-Agent (an audit log: which client asked for what,
  // e.g. to check the calls a binary makes against the RBAC rules it is installed with).
  bool record_requests = false;
};

// One request as the audit log keeps it.
struct RecordedRequest {
  std::string method;      // "GET", "POST", ...
  std::string path;        // decoded path
  std::string query;       // raw query string, without '?'
  std::string user_agent;  // "" when the client sent none
};

// Answer the next `count` matching requests with `status` instead of serving them.
struct FaultRule {
  int status = 500;                          // e.g. 429, 500, 503
  int count = 1;                             // how many requests to fail
  std::string path_contains;                 // empty = any path
  std::string method;                        // empty = any method
  std::optional<int> retry_after_seconds;    // adds Retry-After and details.retryAfterSeconds
  bool include_watches = true;               // false = let watch requests through
};

class ApiServerDouble {
 public:
  explicit ApiServerDouble(DoubleOptions options = {});
  ~ApiServerDouble();
  ApiServerDouble(const ApiServerDouble&) = delete;
  ApiServerDouble& operator=(const ApiServerDouble&) = delete;

  // Starts serving; throws std::runtime_error if the port cannot be bound.
  void Start();
  // Stops serving and closes every open watch. State is kept in memory.
  void Stop();
  // Stop + start on the same port. keep_state=false drops every object and CRD (resourceVersions keep
  // increasing, and every older resourceVersion becomes too old: watches resuming from it get 410).
  void Restart(bool keep_state);
  bool running() const;
  uint16_t port() const;
  std::string url() const;  // "http://127.0.0.1:PORT"
  // A kubeconfig (YAML) with one cluster/user/context named "double" pointing at url().
  std::string KubeconfigYaml(const std::string& default_namespace = "default") const;

  // --- State, bypassing HTTP and faults. Objects are full Kubernetes JSON objects. ---
  // Creates or replaces (by apiVersion/kind/namespace/name) and emits the watch event; returns the stored
  // object with server fields set (status included, even for types with a status subresource; a
  // namespaced object without namespace goes to "default"). Throws std::invalid_argument for unknown
  // kinds or missing names, std::runtime_error (an ApiError) for what the server would reject, e.g. a
  // missing namespace or an invalid CRD.
  nlohmann::json put(const nlohmann::json& object);
  // Loads every object from a YAML (multi-document) or JSON file (a single object, a List, or an array).
  // Returns how many objects were stored; throws std::runtime_error naming the file and the problem.
  std::size_t SeedFile(const std::string& path);
  // `resource` is "pods", "nodes", "leases.coordination.k8s.io", "<plural>.<group>" for CRs.
  std::optional<nlohmann::json> Get(const std::string& resource, const std::string& namespace_name,
                                    const std::string& name) const;
  // All objects of a resource; empty namespace_name = all namespaces.
  std::vector<nlohmann::json> List(const std::string& resource, const std::string& namespace_name = "") const;
  // Deletes immediately (ignores finalizers). Returns false if it did not exist.
  bool Remove(const std::string& resource, const std::string& namespace_name, const std::string& name);
  // The current value of the single resourceVersion counter.
  std::string ResourceVersion() const;

  // --- Fault injection (also reachable over HTTP: POST /_double/faults, see README). ---
  void FailNext(FaultRule rule);
  void ClearFaults();
  // Delays every response by `delay` (0 = off). Watches are delayed before their first byte.
  void SetResponseDelay(std::chrono::milliseconds delay);
  // Ends every open watch stream cleanly (as an apiserver restart or LB cut would).
  void DropWatches();
  // Forgets all watch history: any watch or snapshot list from an older resourceVersion gets 410, and
  // open watches receive an in-stream ERROR 410 Expired event, then close.
  void Compact();
  std::size_t OpenWatches() const;
  // Requests served since start (all paths, including failed ones); handy to assert on retries.
  std::size_t RequestCount() const;
  // Every request since start, in arrival order, when DoubleOptions::record_requests is set (else empty).
  std::vector<RecordedRequest> RecordedRequests() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gangplank::apiserver_double
