// One accepted connection of the Asio server: reads requests one at a time with Beast's parser, hands
// each to the handler, and writes its answer (a whole response, or a chunked stream) before reading the
// next, so pipelined requests are answered in order. All of its state lives on its own strand.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/http_server.h"

namespace gangplank::net::asio_server {

class AsioResponseStream;
class Core;

// What responders and streams use, whatever the transport. Every method except executor() must run
// on executor().
class ConnectionBase : public std::enable_shared_from_this<ConnectionBase> {
 public:
  virtual ~ConnectionBase() = default;
  virtual boost::asio::any_io_executor executor() = 0;
  virtual void SendResponse(HttpResponse response) = 0;
  virtual void SendStreamHead(int status, std::vector<std::pair<std::string, std::string>> headers,
                                std::shared_ptr<AsioResponseStream> stream) = 0;
  // Sends whatever the current stream has queued (no-op while a write is in flight).
  virtual void FlushStream() = 0;
  // Closes the socket at once; the current stream, if any, ends as client-gone.
  virtual void ForceClose() = 0;
};

// Serve an accepted socket over plain HTTP, or over TLS with `context`.
void ServePlain(const std::shared_ptr<Core>& core, boost::asio::ip::tcp::socket socket);
void ServeTls(const std::shared_ptr<Core>& core, boost::asio::ip::tcp::socket socket,
               std::shared_ptr<boost::asio::ssl::context> context);

}  // namespace gangplank::net::asio_server
