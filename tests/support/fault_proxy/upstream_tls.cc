#include "tests/support/fault_proxy/upstream_tls.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace gangplank::testing::fault_proxy {

TlsConnection::~TlsConnection() {
  SSL_free(ssl_);
  ::close(fd_);
}

bool TlsConnection::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    const int n = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

int TlsConnection::ReadSome(char* buffer, int size, int timeout_ms) {
  if (SSL_pending(ssl_) == 0) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready == 0) return 0;
    if (ready < 0) return -1;
  }
  const int n = SSL_read(ssl_, buffer, size);
  if (n > 0) return n;
  // A TLS record split across reads: no application bytes yet, but the stream is alive.
  const int error = SSL_get_error(ssl_, n);
  return error == SSL_ERROR_WANT_READ ? 0 : -1;
}

void TlsConnection::Shutdown() { ::shutdown(fd_, SHUT_RDWR); }

namespace {

SSL_CTX* NewContext(const UpstreamOptions& options, bool with_certificate) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) throw std::runtime_error("fault proxy: SSL_CTX_new failed");
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  bool ok = SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) == 1;
  if (ok && with_certificate) {
    ok = SSL_CTX_use_certificate_chain_file(ctx, options.client_cert_file.c_str()) == 1 &&
         SSL_CTX_use_PrivateKey_file(ctx, options.client_key_file.c_str(), SSL_FILETYPE_PEM) == 1;
  }
  if (!ok) {
    SSL_CTX_free(ctx);
    throw std::runtime_error("fault proxy: cannot load the CA " + options.ca_file + " or the client certificate " +
                             options.client_cert_file);
  }
  return ctx;
}

int ConnectTcp(const std::string& host, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

UpstreamTls::UpstreamTls(UpstreamOptions options)
    : options_(std::move(options)), anonymous_(NewContext(options_, false)) {
  if (!options_.client_cert_file.empty()) certified_.reset(NewContext(options_, true));
}

std::unique_ptr<TlsConnection> UpstreamTls::Connect(bool with_certificate) const {
  const int fd = ConnectTcp(options_.host, options_.port);
  if (fd < 0) return nullptr;
  SSL_CTX* ctx = with_certificate && certified_ ? certified_.get() : anonymous_.get();
  SSL* ssl = SSL_new(ctx);
  auto connection = std::make_unique<TlsConnection>(fd, ssl);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), options_.host.c_str());
  SSL_set_fd(ssl, fd);
  if (SSL_connect(ssl) != 1) return nullptr;
  return connection;
}

}  // namespace gangplank::testing::fault_proxy
