#include "net/tls_file_watch.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <filesystem>
#include <memory>

namespace gangplank::net {
namespace {

std::string LastSslError(const std::string& what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  char text[256] = {};
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  return what + (code != 0 ? std::string(": ") + text : std::string());
}

}  // namespace

std::string CheckTlsPair(const std::string& cert_file, const std::string& key_file) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()), &SSL_CTX_free);
  if (!ctx) return LastSslError("cannot create a TLS context");
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1) {
    return LastSslError("cannot load certificate " + cert_file);
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    // OpenSSL already compares the key with the loaded certificate here.
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      return "key " + key_file + " does not match certificate " + cert_file;
    }
    return LastSslError("cannot load key " + key_file);
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) return LastSslError("key " + key_file + " does not match certificate " + cert_file);
  return {};
}

std::string CheckClientCa(const std::string& ca_file) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()), &SSL_CTX_free);
  if (!ctx) return LastSslError("cannot create a TLS context");
  if (SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr) != 1) {
    return LastSslError("cannot load client CA " + ca_file);
  }
  return {};
}

std::string CheckTlsFiles(const HttpTlsFiles& files) {
  std::string problem = CheckTlsPair(files.cert_file, files.key_file);
  if (problem.empty() && !files.client_ca_file.empty()) problem = CheckClientCa(files.client_ca_file);
  return problem;
}

TlsFileWatch::TlsFileWatch(HttpTlsFiles files) : files_(std::move(files)), stamp_(Stamp()) {}

std::string TlsFileWatch::Stamp() const {
  std::string stamp;
  for (const std::string& file : {files_.cert_file, files_.key_file, files_.client_ca_file}) {
    if (file.empty()) continue;  // No client CA: only the pair is watched.
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(file, ec);
    stamp += ec ? "missing;" : std::to_string(t.time_since_epoch().count()) + ";";
  }
  return stamp;
}

TlsFileWatch::Result TlsFileWatch::Check() {
  std::string now = Stamp();
  if (now == stamp_) return {};
  // Renewals write two (or three) files: only a complete, consistent pair counts; until then the stamp stays, so
  // the next check looks again.
  if (std::string problem = CheckTlsFiles(files_); !problem.empty()) {
    return {Change::kNotReady, std::move(problem)};
  }
  stamp_ = std::move(now);
  return {Change::kRenewed, {}};
}

}  // namespace gangplank::net
