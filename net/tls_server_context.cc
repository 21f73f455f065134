#include "net/tls_server_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace gangplank::net {
namespace {

std::string ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("http server: cannot read TLS ") + what + " file '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::shared_ptr<boost::asio::ssl::context> LoadServerTlsContext(const HttpTlsFiles& files) {
  namespace ssl = boost::asio::ssl;
  // Read first so a missing file is named as such rather than as an OpenSSL error.
  const std::string cert = ReadFile(files.cert_file, "certificate");
  const std::string key = ReadFile(files.key_file, "key");
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  boost::system::error_code ec;
  // Key first: loaded alone it fails only when it is not a key; a certificate that does not belong to
  // it is caught by the check below, with a message saying so.
  context->use_private_key(boost::asio::buffer(key), ssl::context::pem, ec);
  if (ec) throw std::runtime_error("http server: TLS key file '" + files.key_file + "' is not a usable PEM key: " + ec.message());
  context->use_certificate_chain(boost::asio::buffer(cert), ec);
  if (ec) {
    throw std::runtime_error("http server: TLS certificate file '" + files.cert_file + "' is not a usable PEM chain: " +
                             ec.message());
  }
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    ERR_clear_error();
    throw std::runtime_error("http server: TLS key file '" + files.key_file + "' does not match certificate '" +
                             files.cert_file + "'");
  }
  return context;
}

}  // namespace gangplank::net
