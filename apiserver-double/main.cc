// gangplank-apiserver-double: serves the API-server double until SIGINT/SIGTERM.
#include <CLI/CLI.hpp>
#include <csignal>
#include <fstream>
#include <iostream>

#include "apiserver-double/api_server_double.h"

int main(int argc, char** argv) {
  using gangplank::apiserver_double::ApiServerDouble;
  using gangplank::apiserver_double::DoubleOptions;
  using gangplank::apiserver_double::FaultRule;

  CLI::App app{"Kubernetes API-server double for gangplank tests"};
  DoubleOptions options;
  std::vector<std::string> seeds;
  std::string kubeconfig_out;
  long bookmark_ms = 60000;
  long watch_timeout_s = 1800;
  int fail_status = 0, fail_count = 1, retry_after = -1;
  std::string fail_path;
  long delay_ms = 0;
  app.add_option("--host", options.host, "Address to listen on")->capture_default_str();
  app.add_option("--port", options.port, "Port (0 = ephemeral, printed on stdout)")->capture_default_str();
  app.add_option("--seed", seeds, "YAML or JSON file of objects to load at start (repeatable)")->check(CLI::ExistingFile);
  app.add_option("--kubeconfig-out", kubeconfig_out, "Write a kubeconfig pointing at the double to this file");
  app.add_option("--history-limit", options.history_limit, "Watch events kept before compaction")->capture_default_str();
  app.add_option("--bookmark-interval-ms", bookmark_ms, "Bookmark period for watches")->capture_default_str();
  app.add_option("--default-watch-timeout-s", watch_timeout_s, "Watch length without timeoutSeconds")->capture_default_str();
  app.add_flag("--expired-watch-as-event", options.expired_watch_as_event,
               "Answer watches from a compacted resourceVersion with an in-stream ERROR event instead of HTTP 410");
  app.add_option("--fail-status", fail_status, "Fault: answer requests with this HTTP status (e.g. 429, 500)");
  app.add_option("--fail-count", fail_count, "Fault: how many requests to fail")->capture_default_str();
  app.add_option("--fail-path", fail_path, "Fault: only requests whose path contains this");
  app.add_option("--retry-after", retry_after, "Fault: Retry-After seconds");
  app.add_option("--delay-ms", delay_ms, "Fault: delay every response");
  CLI11_PARSE(app, argc, argv);
  options.bookmark_interval = std::chrono::milliseconds(bookmark_ms);
  options.default_watch_timeout = std::chrono::seconds(watch_timeout_s);

  // Block the signals before any thread starts so sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  try {
    ApiServerDouble server(options);
    for (const auto& seed : seeds) {
      const auto n = server.SeedFile(seed);
      std::cerr << "seeded " << n << " objects from " << seed << "\n";
    }
    if (fail_status != 0) {
      FaultRule rule;
      rule.status = fail_status;
      rule.count = fail_count;
      rule.path_contains = fail_path;
      if (retry_after >= 0) rule.retry_after_seconds = retry_after;
      server.FailNext(rule);
    }
    if (delay_ms > 0) server.SetResponseDelay(std::chrono::milliseconds(delay_ms));
    server.Start();
    if (!kubeconfig_out.empty()) {
      std::ofstream out(kubeconfig_out);
      if (!out) throw std::runtime_error("cannot write kubeconfig '" + kubeconfig_out + "'");
      out << server.KubeconfigYaml();
    }
    std::cout << server.url() << std::endl;
    int received = 0;
    sigwait(&signals, &received);
    std::cerr << "stopping on signal " << received << "\n";
    server.Stop();
  } catch (const std::exception& e) {
    std::cerr << "gangplank-apiserver-double: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
