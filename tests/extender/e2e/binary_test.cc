// The gangplank-extender binary itself: settings from flags and environment, readiness once its
// informers have synced against the real kube-apiserver, JSON logs, and a clean exit on SIGTERM.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/extender/support/free_port.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/support/real_api_test.h"

namespace gangplank::extender {
namespace {

using ExtenderBinary = gangplank::testing::RealApiTest;

TEST_F(ExtenderBinary, ServesWhenSyncedAndStopsCleanlyOnSigterm) {
  Put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}, {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
       {"status", {{"allocatable", {{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "4"}, {"pods", "110"}}},
                   {"capacity", {{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "4"}, {"pods", "110"}}}}}});
  const auto dir = std::filesystem::temp_directory_path() / ("extender-bin-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(plane().kubeconfig(), dir / "kubeconfig", std::filesystem::copy_options::overwrite_existing);
  const std::string log = (dir / "log").string();
  const std::uint16_t port = testing::FreePort();

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string kubeconfig = (dir / "kubeconfig").string();
    ::setenv("GANGPLANK_EXTENDER_PORT", std::to_string(port).c_str(), 1);  // From the environment.
    ::freopen(log.c_str(), "w", stderr);
    ::execl(GANGPLANK_EXTENDER_BINARY, GANGPLANK_EXTENDER_BINARY, "--listen-address", "127.0.0.1", "--kubeconfig",
            kubeconfig.c_str(), "--path-prefix", "/gp", "--queue", "team-a:2:8", nullptr);
    ::_exit(127);
  }
  bool ready = false;
  for (int i = 0; i < 1500 && !ready; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    try {
      testing::LoopbackClient client(port);
      ready = client.Get("/readyz").status == 200;
    } catch (const std::exception&) {
      // Not listening yet.
    }
  }
  EXPECT_TRUE(ready);
  if (ready) {
    testing::LoopbackClient client(port);
    const auto r = client.Post("/gp/filter", R"({"Pod":{"metadata":{"name":"p","uid":"u"},"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":"2"}}}]}},"Nodes":null,"NodeNames":["n1"]})");
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.body.find(R"("NodeNames":["n1"])"), std::string::npos) << r.body;
  }
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::stringstream logs;
  logs << std::ifstream(log).rdbuf();
  EXPECT_NE(logs.str().find(R"("level":"info","msg":"shutting down","signal":"SIGTERM")"), std::string::npos) << logs.str();
  EXPECT_NE(logs.str().find(R"("msg":"stopped")"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gangplank::extender
