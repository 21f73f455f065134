// HttpResponseStream for the Asio server. Producers on any thread append to a pending buffer; the
// connection takes the whole buffer in one piece on its own executor and sends it as one chunk, so a
// burst of small writes costs one socket write, not one thread hop each.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "net/http_server.h"

namespace gangplank::net::asio_server {

class ConnectionBase;
class Core;

class AsioResponseStream final : public HttpResponseStream, public std::enable_shared_from_this<AsioResponseStream> {
 public:
  AsioResponseStream(std::shared_ptr<Core> core, std::size_t max_buffered);

  bool Write(std::string_view bytes) override;
  void Close() override;
  bool closed() const override;
  std::size_t BufferedBytes() const override;
  void OnClosed(std::function<void()> callback) override;

  // --- Used by the connection (on its executor) -------------------------------------------------

  // Binds the stream to the connection that sends it; until then writes only queue.
  void Attach(std::shared_ptr<ConnectionBase> connection);

  struct Batch {
    std::string bytes;  // everything queued so far (may be empty)
    bool last = false;  // close() was called and `bytes` is the end of the body
  };
  // Takes all queued bytes; they count as buffered until sent() reports them written.
  Batch Take();
  void sent();
  // The client went away or the connection closed: ends the stream without a final chunk.
  void ClientGone();

 private:
  // Ends the stream once; `graceful` keeps queued bytes for the final flush.
  void finish(bool graceful);
  // Posts one flush to the connection unless one is already queued.
  void RequestFlushLocked();

  const std::shared_ptr<Core> core_;
  const std::size_t max_buffered_;
  mutable std::mutex mutex_;
  std::string pending_;
  std::size_t in_flight_ = 0;
  bool closed_ = false;         // no more writes accepted
  bool last_requested_ = false; // close(): the final chunk is owed
  bool flush_posted_ = false;
  std::shared_ptr<ConnectionBase> connection_;  // set while attached and not finished
  std::vector<std::function<void()>> callbacks_;
};

}  // namespace gangplank::net::asio_server
