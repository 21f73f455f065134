// The binary's HTTPS: it serves the certificate it was started with and, once the files change, the
// new one — checked with clients that each trust exactly one of two self-signed certificates.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/extender/support/free_port.h"
#include "net/tls_file_watch.h"
#include "net/http_client.h"
#include "tests/support/real_api_test.h"
#include "tests/support/self_signed_cert.h"

namespace gangplank::extender {
namespace {

namespace fs = std::filesystem;

// Whether a client trusting only `ca` completes GET /healthz.
bool TrustedBy(std::uint16_t port, const fs::path& ca) {
  net::HttpClientOptions options;
  options.base_url = "https://127.0.0.1:" + std::to_string(port);
  options.tls.ca_file = ca.string();
  try {
    auto client = net::MakeHttpClient(options);
    net::HttpClientRequest request;
    request.target = "/healthz";
    request.timeout = std::chrono::milliseconds(2000);
    return client->Send(request).status == 200;
  } catch (const std::exception&) {
    return false;
  }
}

using ExtenderTlsReload = gangplank::testing::RealApiTest;

TEST_F(ExtenderTlsReload, ReloadsItsCertificateWhenTheFilesChange) {
  const fs::path dir = fs::temp_directory_path() / ("extender-tls-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  if (!gangplank::testing::MakeSelfSignedCert(dir, "a") || !gangplank::testing::MakeSelfSignedCert(dir, "b")) GTEST_SKIP() << "openssl cannot make test certificates";
  EXPECT_EQ(net::CheckTlsPair((dir / "a.crt").string(), (dir / "a.key").string()), "");
  EXPECT_NE(net::CheckTlsPair((dir / "a.crt").string(), (dir / "b.key").string()).find("does not match certificate"), std::string::npos);
  EXPECT_NE(net::CheckTlsPair((dir / "none.crt").string(), (dir / "a.key").string()).find("cannot load certificate"),
            std::string::npos);
  fs::copy_file(dir / "a.crt", dir / "tls.crt");
  fs::copy_file(dir / "a.key", dir / "tls.key");
  fs::copy_file(plane().kubeconfig(), dir / "kubeconfig", fs::copy_options::overwrite_existing);
  const std::uint16_t port = testing::FreePort();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string cert = (dir / "tls.crt").string(), key = (dir / "tls.key").string();
    const std::string kubeconfig = (dir / "kubeconfig").string(), p = std::to_string(port);
    ::freopen((dir / "log").c_str(), "w", stderr);
    ::execl(GANGPLANK_EXTENDER_BINARY, GANGPLANK_EXTENDER_BINARY, "--listen-address", "127.0.0.1", "--port", p.c_str(),
            "--kubeconfig", kubeconfig.c_str(), "--tls-cert-file", cert.c_str(), "--tls-key-file", key.c_str(),
            "--tls-reload-seconds", "1", nullptr);
    ::_exit(127);
  }
  auto eventually = [](auto&& condition) {
    for (int i = 0; i < 150; ++i) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  EXPECT_TRUE(eventually([&] { return TrustedBy(port, dir / "a.crt"); }));
  EXPECT_FALSE(TrustedBy(port, dir / "b.crt"));
  // Renew one file at a time: while only the key is new the pair does not match, and the service
  // must keep serving the old certificate instead of going down.
  fs::copy_file(dir / "b.key", dir / "tls.key", fs::copy_options::overwrite_existing);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // At least two reload checks.
  EXPECT_TRUE(TrustedBy(port, dir / "a.crt"));
  fs::copy_file(dir / "b.crt", dir / "tls.crt", fs::copy_options::overwrite_existing);
  EXPECT_TRUE(eventually([&] { return TrustedBy(port, dir / "b.crt"); }));
  EXPECT_FALSE(TrustedBy(port, dir / "a.crt"));
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gangplank::extender
