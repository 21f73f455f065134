// HTTPS: certificate files read at start(), TLS 1.2+, and reload_tls() for new connections.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "net/http_server.h"
#include "net/tls_file_watch.h"
#include "tests/support/raw_http.h"
#include "tests/support/subprocess.h"

namespace gangplank::net {
namespace {

// Self-signed certificate for 127.0.0.1 with the given serial number, written as PEM files.
void write_self_signed(const std::string& cert_path, const std::string& key_path, long serial = 1) {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  FILE* c = std::fopen(cert_path.c_str(), "w");
  PEM_write_X509(c, cert);
  std::fclose(c);
  FILE* k = std::fopen(key_path.c_str(), "w");
  PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(k);
  X509_free(cert);
  EVP_PKEY_free(key);
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/srv-" + std::to_string(::getpid()) + "-" + name;
}

// Serial number of the certificate the server presents to a new connection (-1 if the handshake
// fails). `max_version` caps the client's TLS version (0 = no cap).
long presented_serial(uint16_t port, int max_version = 0) {
  int fd = -1;
  try {
    fd = gangplank::testing::connect_loopback(port);
  } catch (const std::runtime_error&) {
    return -1;
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);
  if (max_version != 0) SSL_CTX_set_max_proto_version(ctx, max_version);
  SSL_CTX_set_security_level(ctx, 0);  // lets the client offer TLS 1.0 to prove the server refuses it
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  long serial = -1;
  if (SSL_connect(ssl) == 1) {
    if (X509* cert = SSL_get1_peer_certificate(ssl)) {
      serial = ASN1_INTEGER_get(X509_get_serialNumber(cert));
      X509_free(cert);
    }
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ::close(fd);
  return serial;
}

TEST(HttpServerTls, ServesHttpsWithCertificateFiles) {
  const std::string cert = temp_path("a.crt"), key = temp_path("a.key");
  write_self_signed(cert, key);
  HttpServerOptions options;
  options.tls = HttpTlsFiles{cert, key};
  auto server = MakeHttpServer(options);
  server->Start(MakeSyncHandler([](const HttpRequest& req) { return HttpResponse::text(200, "secure " + req.path); }));
  EXPECT_EQ(server->BaseUrl().rfind("https://", 0), 0u);
  ASSERT_EQ(::access(GANGPLANK_CURL, X_OK), 0) << "curl is needed (scripts/install-deps.sh installs it)";
  auto r = gangplank::testing::run_process({GANGPLANK_CURL, "-sk", server->BaseUrl() + "/hello"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "secure /hello");
  // A 2 KB body makes curl send Expect: 100-continue over TLS.
  auto post = gangplank::testing::run_process(
      {GANGPLANK_CURL, "-sk", "-H", "Content-Type: text/plain", "--data-binary", std::string(2048, 'z'), server->BaseUrl() + "/p"});
  EXPECT_EQ(post.exit_code, 0) << post.err;
  EXPECT_EQ(post.out, "secure /p");
  EXPECT_EQ(presented_serial(server->port(), TLS1_1_VERSION), -1);  // TLS 1.1 and older are refused
  EXPECT_EQ(presented_serial(server->port()), 1);
}

TEST(HttpServerTls, StartNamesAMissingOrBadFile) {
  const std::string cert = temp_path("b.crt"), key = temp_path("b.key"), other_key = temp_path("b2.key");
  write_self_signed(cert, key);
  write_self_signed(temp_path("b2.crt"), other_key);
  auto expect_error = [](HttpTlsFiles files, const std::string& needle) {
    HttpServerOptions options;
    options.tls = files;
    try {
      MakeHttpServer(options)->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse{}; }));
      ADD_FAILURE() << "started with " << files.cert_file << " / " << files.key_file;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({temp_path("nope.crt"), key}, "nope.crt");
  expect_error({cert, temp_path("nope.key")}, "nope.key");
  std::ofstream(temp_path("junk.crt")) << "not a certificate\n";
  expect_error({temp_path("junk.crt"), key}, "junk.crt");
  expect_error({cert, other_key}, "does not match");
}

TEST(HttpServerTls, ReloadServesTheNewCertificateToNewConnectionsAndKeepsTheOldOnError) {
  const std::string cert = temp_path("r.crt"), key = temp_path("r.key");
  write_self_signed(cert, key, 7);
  HttpServerOptions options;
  options.tls = HttpTlsFiles{cert, key};
  auto server = MakeHttpServer(options);
  server->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "ok"); }));
  EXPECT_EQ(presented_serial(server->port()), 7);
  // A half-written renewal (new certificate, old key) is refused; the old pair stays in use.
  const std::string new_cert = temp_path("r2.crt"), new_key = temp_path("r2.key");
  write_self_signed(new_cert, new_key, 8);
  std::filesystem::copy_file(new_cert, cert, std::filesystem::copy_options::overwrite_existing);
  const std::string why = server->ReloadTls();
  EXPECT_NE(why.find("does not match"), std::string::npos) << why;
  EXPECT_EQ(presented_serial(server->port()), 7);
  std::filesystem::copy_file(new_key, key, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(server->ReloadTls(), "");
  EXPECT_EQ(presented_serial(server->port()), 8);
  auto plain = MakeHttpServer({});
  plain->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse{}; }));
  EXPECT_NE(plain->ReloadTls(), "");
}

// A renewal is taken once, and only when both files form a usable pair again.
TEST(TlsFileWatch, TakesARenewalOnceAndOnlyWhenThePairIsUsable) {
  const std::string cert = temp_path("watch.crt"), key = temp_path("watch.key");
  const std::string other_cert = temp_path("other.crt"), other_key = temp_path("other.key");
  write_self_signed(cert, key, 1);
  write_self_signed(other_cert, other_key, 2);
  TlsFileWatch watch(HttpTlsFiles{cert, key});
  EXPECT_EQ(watch.Check().change, TlsFileWatch::Change::kNone);

  // Half a renewal: the new certificate is written, its key not yet.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // A later modification time.
  write_self_signed(cert, temp_path("discarded.key"), 3);
  const TlsFileWatch::Result half = watch.Check();
  EXPECT_EQ(half.change, TlsFileWatch::Change::kNotReady);
  EXPECT_NE(half.problem.find("does not match certificate"), std::string::npos) << half.problem;
  EXPECT_EQ(watch.Check().change, TlsFileWatch::Change::kNotReady);  // Still looked at again.

  std::filesystem::copy_file(other_cert, cert, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(other_key, key, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(watch.Check().change, TlsFileWatch::Change::kRenewed);
  EXPECT_EQ(watch.Check().change, TlsFileWatch::Change::kNone);
}

}  // namespace
}  // namespace gangplank::net
