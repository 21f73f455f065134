// A fault-injecting proxy in front of the real kube-apiserver, for the tests that once ran on an API
// server double: the client under test talks plain HTTP to the proxy on loopback, the proxy relays each
// request over TLS to kube-apiserver and its answer back byte for byte, unless a fault says otherwise:
//
//   FailNext     answer the next matching requests itself: 429 with Retry-After, 500, 409, 410, ... as a
//                Kubernetes Status, or for a watch an in-stream ERROR event (how the watch cache says 410)
//   SetResponseDelay  hold every answer (a watch's first byte) that long
//   DropWatches  end every open watch stream cleanly at the next event boundary (an API server restart or
//                a load balancer's idle cut), or cut it in the middle of its next event
//   Stop/Start   the server is gone (connections refused, open streams cut) and back on the same port
//
// Every request has an upstream connection of its own (Connection: close), so faults never land in the
// middle of somebody else's keep-alive. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/fault_proxy/upstream_tls.h"

namespace gangplank::testing {

// Answer the next `count` matching requests with `status` instead of relaying them.
struct ProxyFault {
  int status = 500;
  int count = 1;
  std::string path_contains;               // "" = any path
  std::string query_contains;              // "" = any query, e.g. "continue=" for the next page of a list
  std::string method;                      // "" = any method
  std::optional<int> retry_after_seconds;  // Retry-After header and details.retryAfterSeconds
  bool include_watches = true;             // false = watches pass
  bool watches_only = false;               // true = only watches match
  // A matching watch is answered 200 with one ERROR event carrying the Status, then the stream ends: what
  // kube-apiserver's watch cache sends for a resourceVersion it no longer has (status 410).
  bool in_stream = false;

  // ProxyFault::Status(429).OnPath("/pods/p").RetryAfter(1)
  static ProxyFault Status(int code) {
    ProxyFault fault;
    fault.status = code;
    return fault;
  }
  ProxyFault& Times(int n) { count = n; return *this; }
  ProxyFault& OnPath(std::string part) { path_contains = std::move(part); return *this; }
  ProxyFault& OnQuery(std::string part) { query_contains = std::move(part); return *this; }
  ProxyFault& OnMethod(std::string name) { method = std::move(name); return *this; }
  ProxyFault& RetryAfter(int seconds) { retry_after_seconds = seconds; return *this; }
  ProxyFault& WatchesOnly() { watches_only = true; return *this; }
  ProxyFault& NotWatches() { include_watches = false; return *this; }
  ProxyFault& InStream(bool yes = true) { in_stream = yes; return *this; }
};

// One relayed or answered request.
struct ProxiedRequest {
  std::string method;
  std::string path;
  std::string query;
  std::string user_agent;
};

class FaultProxy {
 public:
  // `upstream`: kube-apiserver's loopback address, its CA and the certificate for credential-less requests.
  explicit FaultProxy(fault_proxy::UpstreamOptions upstream, std::uint16_t port = 0);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // Listens on 127.0.0.1 (the port of the first Start is kept); throws std::runtime_error if it cannot.
  void Start();
  // Refuses connections and cuts every open one.
  void Stop();
  bool running() const;
  std::uint16_t port() const;
  std::string url() const;  // "http://127.0.0.1:PORT"
  // A kubeconfig (YAML) for the proxy: no credentials (the proxy presents the admin certificate), or
  // `token` as the bearer token (then the request is judged as that token's user).
  std::string KubeconfigYaml(const std::string& token = "", const std::string& default_namespace = "default") const;

  void FailNext(ProxyFault fault);
  void ClearFaults();
  void SetResponseDelay(std::chrono::milliseconds delay);
  enum class WatchEnd { kClean, kMidEvent };
  void DropWatches(WatchEnd how = WatchEnd::kClean);
  std::size_t OpenWatches() const;
  std::size_t RequestCount() const;
  std::vector<ProxiedRequest> Requests() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gangplank::testing
