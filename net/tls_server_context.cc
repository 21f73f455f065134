#include "net/tls_server_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace gangplank::net {
namespace {

std::string ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("http server: cannot read TLS ") + what + " file '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Accepts a verified chain only when its leaf names one of `names` (X509_check_host: DNS subjectAltNames,
// else the common name).
void RequireClientNames(boost::asio::ssl::context& context, std::vector<std::string> names) {
  context.set_verify_callback([names = std::move(names)](bool preverified, boost::asio::ssl::verify_context& verify) {
    if (!preverified) return false;
    X509_STORE_CTX* store = verify.native_handle();
    if (X509_STORE_CTX_get_error_depth(store) != 0) return true;  // An issuer: the names are the leaf's.
    X509* leaf = X509_STORE_CTX_get_current_cert(store);
    for (const std::string& name : names) {
      if (X509_check_host(leaf, name.data(), name.size(), 0, nullptr) == 1) return true;
    }
    X509_STORE_CTX_set_error(store, X509_V_ERR_HOSTNAME_MISMATCH);
    return false;
  });
}

// Mutual TLS: only clients whose certificate one of the CAs in `ca_file` signed complete the handshake.
void RequireClientCertificates(boost::asio::ssl::context& context, const std::string& ca_file) {
  namespace ssl = boost::asio::ssl;
  const std::string pem = ReadFile(ca_file, "client CA");
  boost::system::error_code ec;
  context.add_certificate_authority(boost::asio::buffer(pem), ec);
  if (ec) throw std::runtime_error("http server: TLS client CA file '" + ca_file + "' is not a usable PEM bundle: " + ec.message());
  // Tells clients which issuers are accepted, so one holding several certificates picks the right one.
  if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca_file.c_str())) {
    SSL_CTX_set_client_CA_list(context.native_handle(), names);
  }
  ERR_clear_error();
  context.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  // With peer verification on, OpenSSL refuses to resume a session that has no id context, which would
  // fail every client that resumes; any fixed value will do for a single service.
  static const unsigned char kSessionContext[] = "gangplank";
  SSL_CTX_set_session_id_context(context.native_handle(), kSessionContext, sizeof kSessionContext - 1);
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
  if (!files.client_ca_file.empty()) {
    RequireClientCertificates(*context, files.client_ca_file);
    if (!files.client_names.empty()) RequireClientNames(*context, files.client_names);
  }
  return context;
}

}  // namespace gangplank::net
