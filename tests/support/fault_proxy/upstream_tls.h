// The proxy's side of its connections to kube-apiserver: TLS verified against the cluster CA, with the
// admin client certificate for requests that bring no credentials of their own (a request with an
// Authorization header is sent without it, so a ServiceAccount token is judged as that account, not as
// the admin the certificate names).
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gangplank::testing::fault_proxy {

// One TLS connection on a blocking socket. Shutdown() may be called from another thread to unblock a
// reader; everything else belongs to the connection's own thread.
class TlsConnection {
 public:
  TlsConnection(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  bool WriteAll(std::string_view bytes);
  // Waits up to `timeout_ms` for bytes; >0 bytes read, 0 nothing yet, <0 the stream ended or failed.
  int ReadSome(char* buffer, int size, int timeout_ms);
  void Shutdown();

 private:
  int fd_;
  SSL* ssl_;
};

struct UpstreamOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string ca_file;
  std::string client_cert_file;  // "" = never present a certificate
  std::string client_key_file;
};

class UpstreamTls {
 public:
  explicit UpstreamTls(UpstreamOptions options);  // Throws std::runtime_error on an unreadable file.
  // A connected, verified TLS connection, or nullptr (the upstream is down or its certificate is wrong).
  std::unique_ptr<TlsConnection> Connect(bool with_certificate) const;

 private:
  struct ContextFree {
    void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
  };
  UpstreamOptions options_;
  std::unique_ptr<SSL_CTX, ContextFree> anonymous_;
  std::unique_ptr<SSL_CTX, ContextFree> certified_;
};

}  // namespace gangplank::testing::fault_proxy
