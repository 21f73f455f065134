// The HTTPS client trusts only the CA it is given (a cluster's CA), not the system's roots beside it:
// a server whose certificate a system root signed is not the API server, whatever else it is.
// OpenSSL's default trust store follows SSL_CERT_FILE, so the test puts "another" CA there, as a
// public root would be.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "net/http_client.h"
#include "net/http_server.h"
#include "tests/net/https_get.h"
#include "tests/net/test_ca.h"

namespace gangplank::net {
namespace {

namespace fs = std::filesystem;

class ClientTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("net-trust-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    if (!testing::MakeCa(dir_, "cluster-ca") || !testing::MakeCa(dir_, "system-root") ||
        !testing::MakeSigned(dir_, "system-root", "impostor", true)) {
      GTEST_SKIP() << "openssl cannot make test certificates";
    }
    HttpServerOptions options;
    options.tls = HttpTlsFiles{Path("impostor.crt"), Path("impostor.key")};
    server_ = MakeHttpServer(options);
    server_->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); }));
    ::setenv("SSL_CERT_FILE", Path("system-root.crt").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("SSL_CERT_FILE");
    if (server_) server_->Stop();
    fs::remove_all(dir_);
  }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // GET / trusting `ca` ("" for no CA of its own); -1 when the connection is refused.
  int Get(const std::string& ca) const {
    ClientTlsOptions tls;
    if (!ca.empty()) tls.ca_file = Path(ca + ".crt");
    return testing::GetStatus(server_->BaseUrl(), tls);
  }

  fs::path dir_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(ClientTrust, AClientGivenACaTrustsOnlyThatCa) {
  EXPECT_EQ(Get("cluster-ca"), -1) << "a system root's certificate passed for the cluster's";
  EXPECT_EQ(Get("system-root"), 200) << "the CA it is given is trusted";
  EXPECT_EQ(Get(""), 200) << "with no CA of its own the client keeps the system's roots (a public endpoint)";
}

}  // namespace
}  // namespace gangplank::net
