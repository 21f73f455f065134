// TlsReload: a renewal is served once both files form a usable pair, a half-written one and one the
// server cannot load leave the current certificate in use, and each outcome is logged. Certificates come
// from the openssl command, as the extender's end-to-end test makes them.
#include "process/tls_reload.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "net/http_client.h"
#include "tests/support/self_signed_cert.h"

namespace gangplank::process {
namespace {

namespace fs = std::filesystem;

// Whether a client trusting only `ca` completes a request to the server.
bool TrustedBy(const net::HttpServer& server, const fs::path& ca) {
  net::HttpClientOptions options;
  options.base_url = server.BaseUrl();
  options.tls.ca_file = ca.string();
  try {
    net::HttpClientRequest request;
    request.target = "/";
    request.timeout = std::chrono::milliseconds(2000);
    return net::MakeHttpClient(options)->Send(request).status == 200;
  } catch (const std::exception&) {
    return false;
  }
}

// Replaces a file the way a renewal does, with a modification time the watch sees as new.
void Renew(const fs::path& from, const fs::path& to) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

// A server whose reload always fails, counting the attempts.
class UnloadableServer : public net::HttpServer {
 public:
  void Start(net::HttpHandler) override {}
  uint16_t port() const override { return 0; }
  std::string BaseUrl() const override { return "https://127.0.0.1:0"; }
  void Stop() override {}
  std::string ReloadTls() override {
    ++reloads_;
    return "cannot read the key";
  }
  int reloads() const { return reloads_; }

 private:
  int reloads_ = 0;
};

class TlsReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("process-tls-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    if (!gangplank::testing::MakeSelfSignedCert(dir_, "a") || !gangplank::testing::MakeSelfSignedCert(dir_, "b")) GTEST_SKIP() << "openssl cannot make test certificates";
    fs::copy_file(dir_ / "a.crt", dir_ / "tls.crt", fs::copy_options::overwrite_existing);
    fs::copy_file(dir_ / "a.key", dir_ / "tls.key", fs::copy_options::overwrite_existing);
    previous_logger_ = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(logs_));
    logger->set_pattern("%l %v");
    spdlog::set_default_logger(logger);
  }
  void TearDown() override {
    if (previous_logger_) spdlog::set_default_logger(previous_logger_);
    fs::remove_all(dir_);
  }
  net::HttpTlsFiles Files() const { return {(dir_ / "tls.crt").string(), (dir_ / "tls.key").string()}; }

  fs::path dir_;
  std::ostringstream logs_;
  std::shared_ptr<spdlog::logger> previous_logger_;
};

TEST_F(TlsReloadTest, ServesARenewalOnceBothFilesAreAUsablePair) {
  net::HttpServerOptions options;
  options.tls = Files();
  auto server = net::MakeHttpServer(options);
  server->Start(net::MakeSyncHandler([](const net::HttpRequest&) { return net::HttpResponse::text(200, "ok"); }));
  TlsReload reload(*server, Files());
  reload.Check();
  EXPECT_TRUE(TrustedBy(*server, dir_ / "a.crt"));
  EXPECT_EQ(logs_.str(), "");  // Nothing changed, nothing said.

  Renew(dir_ / "b.key", dir_ / "tls.key");  // Half a renewal: the old certificate stays.
  reload.Check();
  EXPECT_TRUE(TrustedBy(*server, dir_ / "a.crt"));
  EXPECT_NE(logs_.str().find(R"(warning "msg":"new TLS files not usable yet; keeping the current certificate")"),
            std::string::npos)
      << logs_.str();

  Renew(dir_ / "b.crt", dir_ / "tls.crt");
  reload.Check();
  EXPECT_TRUE(TrustedBy(*server, dir_ / "b.crt"));
  EXPECT_FALSE(TrustedBy(*server, dir_ / "a.crt"));
  EXPECT_NE(logs_.str().find(R"(info "msg":"TLS certificate or key changed; new connections use it")"),
            std::string::npos)
      << logs_.str();
  server->Stop();
}

TEST_F(TlsReloadTest, ARenewalTheServerCannotLoadIsReportedAndTriedOnce) {
  UnloadableServer server;
  TlsReload reload(server, Files(), "webhook");
  Renew(dir_ / "b.crt", dir_ / "tls.crt");
  Renew(dir_ / "b.key", dir_ / "tls.key");
  reload.Check();
  reload.Check();
  EXPECT_EQ(server.reloads(), 1);
  EXPECT_NE(logs_.str().find(R"(error "msg":"cannot load the new webhook certificate; keeping the current one",)"
                             R"("error":"cannot read the key")"),
            std::string::npos)
      << logs_.str();
}

}  // namespace
}  // namespace gangplank::process
