// The real Prometheus (Debian's /usr/bin/prometheus) as a child process on a free loopback port, scraping
// given targets every second with a generated config and storage of its own, for tests of what the
// operator reads from it. Stopped, and its directory removed, on destruction.
//
// Suites call GANGPLANK_REQUIRE_PROMETHEUS() first: without the binary the test is skipped with a line
// saying so, except under CI (the environment variable CI set), where its absence is a failure.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "net/http_client.h"
#include "promql/prometheus_client.h"
#include "tests/extender/support/free_port.h"
#include "tests/support/child_process.h"

namespace gangplank::testing {

inline constexpr const char* kPrometheusBinary = "/usr/bin/prometheus";

// Why the real Prometheus cannot run here, or "" when it can.
inline std::string PrometheusUnavailable() {
  if (::access(kPrometheusBinary, X_OK) == 0) return "";
  return std::string(kPrometheusBinary) +
         " is missing (Debian package prometheus; scripts/install-deps.sh installs it)";
}

#define GANGPLANK_REQUIRE_PROMETHEUS()                                                                      \
  do {                                                                                                      \
    const std::string gangplank_missing = ::gangplank::testing::PrometheusUnavailable();                    \
    if (!gangplank_missing.empty()) {                                                                       \
      if (std::getenv("CI") != nullptr) FAIL() << "CI requires the real Prometheus: " << gangplank_missing; \
      GTEST_SKIP() << "skipped, the real Prometheus is needed: " << gangplank_missing;                      \
    }                                                                                                       \
  } while (0)

struct PrometheusFixtureOptions {
  std::vector<std::string> targets = {};  // host:port of each exporter, scraped at /metrics as job `job`
  std::string job = "dcgm";
  bool honor_labels = true;       // keep the exporter's namespace/pod labels as they are
  bool enable_lifecycle = false;  // --web.enable-lifecycle (POST /-/reload, /-/quit)
  std::chrono::milliseconds ready_timeout{30000};
};

class PrometheusFixture {
 public:
  // Starts Prometheus and waits for /-/ready; throws std::runtime_error with its log when it is not.
  explicit PrometheusFixture(PrometheusFixtureOptions options)
      : options_(std::move(options)), dir_(MakeTempDir()), port_(extender::testing::FreePort()) {
    WriteConfig();
    process_ = std::make_unique<ChildProcess>(Argv(), (dir_ / "prometheus.log").string());
    if (!WaitUntil([this] { return Ready(); }, options_.ready_timeout)) {
      throw std::runtime_error("Prometheus did not become ready:\n" + Log());
    }
  }
  ~PrometheusFixture() {
    process_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PrometheusFixture(const PrometheusFixture&) = delete;
  PrometheusFixture& operator=(const PrometheusFixture&) = delete;

  std::uint16_t port() const { return port_; }
  std::string BaseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string Log() const { return process_ ? process_->Log() : ""; }

  // Polls `promql` until it answers at least `min_series` series (the first scrapes have landed).
  bool WaitForSeries(const std::string& promql, std::size_t min_series = 1,
                     std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    return WaitUntil([&] { return SeriesCount(promql) >= static_cast<long>(min_series); }, timeout);
  }
  // Polls `promql` until it answers an empty vector (a target gone down has its series marked stale).
  bool WaitForNoSeries(const std::string& promql, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    return WaitUntil([&] { return SeriesCount(promql) == 0; }, timeout);
  }

 private:
  static std::filesystem::path MakeTempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gangplank-prometheus-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    return pattern;
  }

  static bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return true;
  }

  void WriteConfig() const {
    std::ofstream config(dir_ / "prometheus.yml");
    config << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
           << "scrape_configs:\n  - job_name: " << options_.job
           << "\n    honor_labels: " << (options_.honor_labels ? "true" : "false")
           << "\n    static_configs:\n      - targets: [";
    for (std::size_t i = 0; i < options_.targets.size(); ++i) config << (i ? ", '" : "'") << options_.targets[i] << "'";
    config << "]\n";
  }

  std::vector<std::string> Argv() const {
    std::vector<std::string> argv{kPrometheusBinary, "--config.file=" + (dir_ / "prometheus.yml").string(),
                                  "--storage.tsdb.path=" + (dir_ / "data").string(),
                                  "--web.listen-address=127.0.0.1:" + std::to_string(port_)};
    if (options_.enable_lifecycle) argv.push_back("--web.enable-lifecycle");
    return argv;
  }

  bool Ready() {
    if (!process_->Running()) throw std::runtime_error("Prometheus exited:\n" + Log());
    try {
      net::HttpClientRequest request;
      request.target = "/-/ready";
      request.timeout = std::chrono::seconds(2);
      return net::MakeHttpClient({BaseUrl(), {}})->Send(request).status == 200;
    } catch (const net::TransportError&) {
      return false;
    }
  }

  // Series in the answer to `promql`, or -1 when the query failed.
  long SeriesCount(const std::string& promql) const {
    promql::PrometheusClient client({.base_url = BaseUrl()});
    const auto result = client.Query(promql);
    return result.ok() ? static_cast<long>(result.value().size()) : -1;
  }

  PrometheusFixtureOptions options_;
  std::filesystem::path dir_;
  std::uint16_t port_;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace gangplank::testing
