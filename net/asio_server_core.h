// State shared by the Asio server, its connections, responders and streams. It owns the io_contexts (one
// per io thread), so a connection kept alive by a responder on some other thread never outlives the
// I/O objects it uses;
// its post gate makes late answers after stop() a no-op instead of work queued on a dead server.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "net/http_server.h"

namespace gangplank::net::asio_server {

class ConnectionBase;
class AsioResponseStream;

class Core {
 public:
  Core(HttpServerOptions options, HttpHandler handler);
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  // One io_context per io thread, each run by its own thread only: a connection's reads, handler and
  // write all happen on one thread, with no hand-off between threads (a futex wake and a context
  // switch each) for every event, which a single io_context shared by all threads costs.
  std::size_t IoCount() const { return ios_.size(); }
  boost::asio::io_context& io(std::size_t i) { return *ios_[i]; }
  // The io_context for the next new connection: round robin.
  boost::asio::io_context& next_io() { return *ios_[next_io_.fetch_add(1) % ios_.size()]; }
  const HttpServerOptions& options() const { return options_; }
  // Only called on io threads, which stop() joins before it releases the handler.
  const HttpHandler& handler() const { return handler_; }
  void ReleaseHandler() { handler_ = nullptr; }

  // Queues `fn` on `executor` unless the server has stopped; false when dropped.
  template <class Executor, class Fn>
  bool Post(const Executor& executor, Fn&& fn) {
    std::lock_guard lock(gate_mutex_);
    if (gate_closed_) return false;
    boost::asio::post(executor, std::forward<Fn>(fn));
    return true;
  }
  void CloseGate();
  bool gate_closed() const;

  // stop() has begun: connections close after their current exchange and new streams end at once.
  void BeginStop();
  bool stopping() const;

  // Requests read and not yet completely answered (stop() waits for them).
  void ExchangeStarted();
  void ExchangeFinished();
  bool WaitForExchanges(std::chrono::milliseconds limit);

  // Open streams, so stop() can end them. register_stream is false once stop() has begun.
  bool RegisterStream(const std::shared_ptr<AsioResponseStream>& stream);
  void UnregisterStream(const AsioResponseStream* stream);
  std::vector<std::shared_ptr<AsioResponseStream>> OpenStreams();

  // Live connections, so stop() can close them. A new one counts as waiting for a request.
  uint64_t AddConnection(std::weak_ptr<ConnectionBase> connection);
  void RemoveConnection(uint64_t id);
  std::vector<std::shared_ptr<ConnectionBase>> connections();
  // Whether HttpServerOptions::max_connections are open already (a new one is then refused).
  bool AtConnectionLimit() const;
  // With HttpServerOptions::shed_waiting_at_limit: a connection waits for a request (handshake, idle) or
  // is busy with one; a no-op otherwise, so a server that does not shed takes no lock per request.
  void SetWaiting(uint64_t id, bool waiting);
  // Takes the connection that has waited longest off the books (its slot is free from now) and returns
  // true, with `victim` set for the caller to close (null when it was ending anyway); false when every
  // connection is busy.
  bool ShedLongestWaiting(std::shared_ptr<ConnectionBase>& victim);

  // The TLS context handed to new connections (reload_tls swaps it).
  std::shared_ptr<boost::asio::ssl::context> tls_context() const;
  void SetTlsContext(std::shared_ptr<boost::asio::ssl::context> context);

 private:
  std::vector<std::unique_ptr<boost::asio::io_context>> ios_;
  std::atomic<std::size_t> next_io_{0};
  const HttpServerOptions options_;
  HttpHandler handler_;

  mutable std::mutex gate_mutex_;
  bool gate_closed_ = false;

  mutable std::mutex mutex_;
  std::condition_variable idle_;
  bool stopping_ = false;
  std::size_t exchanges_ = 0;
  std::unordered_map<const AsioResponseStream*, std::weak_ptr<AsioResponseStream>> streams_;
  uint64_t next_connection_id_ = 1;
  struct Slot {
    std::weak_ptr<ConnectionBase> connection;
    // Since when it waits for a request; max() while it is busy with one.
    std::chrono::steady_clock::time_point waiting_since;
  };
  std::unordered_map<uint64_t, Slot> connections_;
  std::shared_ptr<boost::asio::ssl::context> tls_context_;
};

}  // namespace gangplank::net::asio_server
