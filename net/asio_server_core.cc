#include "net/asio_server_core.h"

#include <algorithm>

namespace gangplank::net::asio_server {

Core::Core(HttpServerOptions options, HttpHandler handler) : options_(std::move(options)), handler_(std::move(handler)) {
  const std::size_t threads = std::max<std::size_t>(1, options_.io_threads);
  // Concurrency hint 1: each context is run by one thread (other threads only post to it).
  for (std::size_t i = 0; i < threads; ++i) ios_.push_back(std::make_unique<boost::asio::io_context>(1));
}

void Core::CloseGate() {
  std::lock_guard lock(gate_mutex_);
  gate_closed_ = true;
}

bool Core::gate_closed() const {
  std::lock_guard lock(gate_mutex_);
  return gate_closed_;
}

void Core::BeginStop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
}

bool Core::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void Core::ExchangeStarted() {
  std::lock_guard lock(mutex_);
  ++exchanges_;
}

void Core::ExchangeFinished() {
  std::lock_guard lock(mutex_);
  if (exchanges_ > 0) --exchanges_;
  if (exchanges_ == 0) idle_.notify_all();
}

bool Core::WaitForExchanges(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, limit, [&] { return exchanges_ == 0; });
}

bool Core::RegisterStream(const std::shared_ptr<AsioResponseStream>& stream) {
  std::lock_guard lock(mutex_);
  if (stopping_) return false;
  streams_[stream.get()] = stream;
  return true;
}

void Core::UnregisterStream(const AsioResponseStream* stream) {
  std::lock_guard lock(mutex_);
  streams_.erase(stream);
}

std::vector<std::shared_ptr<AsioResponseStream>> Core::OpenStreams() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<AsioResponseStream>> out;
  for (auto& [key, weak] : streams_) {
    if (auto s = weak.lock()) out.push_back(std::move(s));
  }
  return out;
}

uint64_t Core::AddConnection(std::weak_ptr<ConnectionBase> connection) {
  std::lock_guard lock(mutex_);
  const uint64_t id = next_connection_id_++;
  connections_.emplace(id, Slot{std::move(connection), std::chrono::steady_clock::now()});
  return id;
}

void Core::RemoveConnection(uint64_t id) {
  std::lock_guard lock(mutex_);
  connections_.erase(id);
}

std::vector<std::shared_ptr<ConnectionBase>> Core::connections() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<ConnectionBase>> out;
  for (auto& [id, slot] : connections_) {
    if (auto c = slot.connection.lock()) out.push_back(std::move(c));
  }
  return out;
}

bool Core::AtConnectionLimit() const {
  if (options_.max_connections == 0) return false;
  std::lock_guard lock(mutex_);
  return connections_.size() >= options_.max_connections;
}

void Core::SetWaiting(uint64_t id, bool waiting) {
  if (!options_.shed_waiting_at_limit) return;
  std::lock_guard lock(mutex_);
  if (const auto it = connections_.find(id); it != connections_.end()) {
    it->second.waiting_since = waiting ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point::max();
  }
}

bool Core::ShedLongestWaiting(std::shared_ptr<ConnectionBase>& victim) {
  std::lock_guard lock(mutex_);
  auto oldest = connections_.end();
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (it->second.waiting_since == std::chrono::steady_clock::time_point::max()) continue;
    if (oldest == connections_.end() || it->second.waiting_since < oldest->second.waiting_since) oldest = it;
  }
  if (oldest == connections_.end()) return false;
  victim = oldest->second.connection.lock();
  connections_.erase(oldest);
  return true;
}

std::shared_ptr<boost::asio::ssl::context> Core::tls_context() const {
  std::lock_guard lock(mutex_);
  return tls_context_;
}

void Core::SetTlsContext(std::shared_ptr<boost::asio::ssl::context> context) {
  std::lock_guard lock(mutex_);
  tls_context_ = std::move(context);
}

}  // namespace gangplank::net::asio_server
