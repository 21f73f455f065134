// GET / over HTTPS with the given client TLS options, as the net/ tests' clients ask it: the status, or
// -1 when the connection or the handshake is refused.
#pragma once

#include <chrono>
#include <string>

#include "net/http_client.h"

namespace gangplank::net::testing {

inline int GetStatus(const std::string& base_url, const ClientTlsOptions& tls) {
  try {
    HttpClientRequest request;
    request.target = "/";
    request.timeout = std::chrono::seconds(5);
    return MakeHttpClient(HttpClientOptions{base_url, tls})->Send(request).status;
  } catch (const TransportError&) {
    return -1;
  }
}

}  // namespace gangplank::net::testing
