// The server side TLS context: TLS 1.2 or newer, certificate chain and private key from PEM files.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>

#include "net/http_server.h"

namespace gangplank::net {

// Reads and checks both files now. Throws std::runtime_error naming the file and what is wrong with it
// (unreadable, not PEM, key not matching the certificate).
std::shared_ptr<boost::asio::ssl::context> LoadServerTlsContext(const HttpTlsFiles& files);

}  // namespace gangplank::net
