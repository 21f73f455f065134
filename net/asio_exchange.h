// HttpResponder::Impl for the Asio server: one request's answer, given exactly once from any thread and
// carried onto the connection's strand. A request left unanswered when the last responder goes is
// answered 500.
#pragma once

#include <atomic>
#include <memory>

#include "net/http_responder_impl.h"

namespace gangplank::net::asio_server {

class ConnectionBase;
class Core;

class AsioExchange final : public HttpResponder::Impl {
 public:
  AsioExchange(std::shared_ptr<Core> core, std::shared_ptr<ConnectionBase> connection)
      : core_(std::move(core)), connection_(std::move(connection)) {}
  ~AsioExchange() override;
  AsioExchange(const AsioExchange&) = delete;
  AsioExchange& operator=(const AsioExchange&) = delete;

  void Respond(HttpResponse response) override;
  std::shared_ptr<HttpResponseStream> StartStream(int status,
                                                   std::vector<std::pair<std::string, std::string>> headers) override;
  bool answered() const override { return answered_.load(); }

 private:
  void PostResponse(HttpResponse&& response);

  const std::shared_ptr<Core> core_;
  const std::shared_ptr<ConnectionBase> connection_;
  std::atomic<bool> answered_{false};
};

}  // namespace gangplank::net::asio_server
