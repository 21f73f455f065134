// Mutual TLS on net::HttpServer (HttpTlsFiles::client_ca_file): only a client presenting a certificate
// the configured CA signed gets an answer; one with no certificate, or another CA's, is refused at the
// handshake. A renewed CA bundle is taken by ReloadTls() like the serving pair.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "net/http_client.h"
#include "net/http_server.h"
#include "net/tls_file_watch.h"
#include "tests/net/https_get.h"
#include "tests/net/test_ca.h"

namespace gangplank::net {
namespace {

namespace fs = std::filesystem;

class MutualTls : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("net-mtls-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    if (!testing::MakeCa(dir_, "ca") || !testing::MakeCa(dir_, "other-ca") ||
        !testing::MakeSigned(dir_, "ca", "server", true) || !testing::MakeSigned(dir_, "ca", "scheduler", false) ||
        !testing::MakeSigned(dir_, "other-ca", "stranger", false)) {
      GTEST_SKIP() << "openssl cannot make test certificates";
    }
    fs::copy_file(dir_ / "ca.crt", dir_ / "client-ca.crt");
    HttpServerOptions options;
    options.tls = HttpTlsFiles{Path("server.crt"), Path("server.key"), Path("client-ca.crt")};
    server_ = MakeHttpServer(options);
    server_->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); }));
  }
  void TearDown() override {
    if (server_) server_->Stop();
    fs::remove_all(dir_);
  }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The status of GET / with the given client certificate ("" for none); -1 when the connection fails.
  int Get(const std::string& client) const {
    ClientTlsOptions tls;
    tls.ca_file = Path("ca.crt");
    if (!client.empty()) {
      tls.client_cert_file = Path(client + ".crt");
      tls.client_key_file = Path(client + ".key");
    }
    return testing::GetStatus(server_->BaseUrl(), tls);
  }

  fs::path dir_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(MutualTls, OnlyClientsWithACertificateTheCaSignedAreAnswered) {
  EXPECT_EQ(Get("scheduler"), 200);
  EXPECT_EQ(Get(""), -1) << "no client certificate: refused at the handshake";
  EXPECT_EQ(Get("stranger"), -1) << "a certificate of another CA: refused";
  EXPECT_EQ(Get("scheduler"), 200) << "still serving";
}

// Review item L7: the chart's CA also signs the operator's and the extender's serving certificates, so
// "any certificate of that CA" admitted their holders too. With client names, only the scheduler's.
TEST_F(MutualTls, WithClientNamesOnlyACertificateForOneOfThemIsAnswered) {
  HttpServerOptions options;
  options.tls = HttpTlsFiles{Path("server.crt"), Path("server.key"), Path("client-ca.crt"), {"scheduler"}};
  server_->Stop();
  server_ = MakeHttpServer(options);
  server_->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); }));
  EXPECT_EQ(Get("scheduler"), 200);
  EXPECT_EQ(Get("server"), -1) << "the CA signed it, for another service: refused";
  EXPECT_EQ(Get("stranger"), -1);
  EXPECT_EQ(Get("scheduler"), 200) << "still serving";
}

TEST_F(MutualTls, ARenewedClientCaIsTakenByReload) {
  TlsFileWatch watch(HttpTlsFiles{Path("server.crt"), Path("server.key"), Path("client-ca.crt")});
  fs::copy_file(dir_ / "other-ca.crt", dir_ / "client-ca.crt", fs::copy_options::overwrite_existing);
  // A stamp only changes with the modification time; make sure it does on coarse clocks.
  fs::last_write_time(dir_ / "client-ca.crt", fs::file_time_type::clock::now() + std::chrono::seconds(5));
  EXPECT_EQ(watch.Check().change, TlsFileWatch::Change::kRenewed);
  ASSERT_EQ(server_->ReloadTls(), "");
  EXPECT_EQ(Get("stranger"), 200);
  EXPECT_EQ(Get("scheduler"), -1) << "the old CA no longer admits";
}

TEST_F(MutualTls, AClientCaThatDoesNotLoadIsNamedAndKeepsTheOldOne) {
  std::ofstream(dir_ / "client-ca.crt") << "not a certificate\n";
  EXPECT_NE(CheckTlsFiles(HttpTlsFiles{Path("server.crt"), Path("server.key"), Path("client-ca.crt")}), "");
  EXPECT_NE(server_->ReloadTls().find("client CA"), std::string::npos);
  EXPECT_EQ(Get("scheduler"), 200);
  HttpServerOptions bad;
  bad.tls = HttpTlsFiles{Path("server.crt"), Path("server.key"), Path("missing.crt")};
  auto server = MakeHttpServer(bad);
  try {
    server->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, ""); }));
    ADD_FAILURE() << "started with a missing client CA";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.crt"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gangplank::net
