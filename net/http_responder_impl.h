// What an HTTP server implementation provides behind HttpResponder: the forwarding in http_message.cc
// knows only this interface, so it stays independent of the library that does the I/O.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/http_server.h"

namespace gangplank::net {

class HttpResponder::Impl {
 public:
  virtual ~Impl() = default;
  virtual void Respond(HttpResponse response) = 0;
  virtual std::shared_ptr<HttpResponseStream> StartStream(int status,
                                                           std::vector<std::pair<std::string, std::string>> headers) = 0;
  virtual bool answered() const = 0;
};

}  // namespace gangplank::net
