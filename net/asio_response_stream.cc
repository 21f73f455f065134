#include "net/asio_response_stream.h"

#include "net/asio_connection.h"
#include "net/asio_server_core.h"

namespace gangplank::net::asio_server {

AsioResponseStream::AsioResponseStream(std::shared_ptr<Core> core, std::size_t max_buffered)
    : core_(std::move(core)), max_buffered_(max_buffered) {}

bool AsioResponseStream::Write(std::string_view bytes) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    if (pending_.size() + in_flight_ + bytes.size() <= max_buffered_) {
      pending_.append(bytes);
      RequestFlushLocked();
      return true;
    }
  }
  // The client reads slower than the producer writes: treat it as gone, as the apiserver does.
  ClientGone();
  return false;
}

void AsioResponseStream::Close() { finish(/*graceful=*/true); }

bool AsioResponseStream::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

std::size_t AsioResponseStream::BufferedBytes() const {
  std::lock_guard lock(mutex_);
  return closed_ ? 0 : pending_.size() + in_flight_;
}

void AsioResponseStream::OnClosed(std::function<void()> callback) {
  {
    std::lock_guard lock(mutex_);
    if (!closed_) {
      callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback();
}

void AsioResponseStream::Attach(std::shared_ptr<ConnectionBase> connection) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  connection_ = std::move(connection);
  if (!pending_.empty()) RequestFlushLocked();
}

AsioResponseStream::Batch AsioResponseStream::Take() {
  std::lock_guard lock(mutex_);
  Batch batch;
  batch.bytes.swap(pending_);
  batch.last = last_requested_;
  last_requested_ = false;
  in_flight_ = batch.bytes.size();
  flush_posted_ = false;
  return batch;
}

void AsioResponseStream::sent() {
  std::lock_guard lock(mutex_);
  in_flight_ = 0;
}

void AsioResponseStream::ClientGone() { finish(/*graceful=*/false); }

void AsioResponseStream::RequestFlushLocked() {
  if (!connection_ || flush_posted_) return;
  flush_posted_ = true;
  core_->Post(connection_->executor(), [connection = connection_] { connection->FlushStream(); });
}

void AsioResponseStream::finish(bool graceful) {
  std::vector<std::function<void()>> callbacks;
  std::shared_ptr<ConnectionBase> connection;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    callbacks.swap(callbacks_);
    if (graceful) {
      last_requested_ = true;
      RequestFlushLocked();
    } else {
      pending_.clear();
    }
    // The posted flush (or the close below) keeps the connection alive from here; dropping this
    // reference breaks the connection <-> stream cycle.
    connection.swap(connection_);
  }
  if (!graceful && connection) {
    core_->Post(connection->executor(), [connection] { connection->ForceClose(); });
  }
  core_->UnregisterStream(this);
  for (auto& callback : callbacks) {
    try {
      callback();
    } catch (...) {
      // A callback must not take the server down.
    }
  }
}

}  // namespace gangplank::net::asio_server
