// gangplank-scheduler-driver: kube-scheduler's part for one profile and one extender, as a process. See
// tools/scheduler-driver/README.md and --help.
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "kube/config.h"
#include "kube/rest_client.h"
#include "logging/json_log.h"
#include "process/signals.h"
#include "tools/scheduler-driver/driver_flags.h"
#include "tools/scheduler-driver/health_server.h"
#include "tools/scheduler-driver/scheduler_driver.h"

namespace {

using namespace gangplank;
using namespace gangplank::scheduler_driver;

int Run(const DriverFlags& flags) {
  const process::StopSignals stop;  // Before any thread starts, so none of them is interrupted by one.

  kube::RestOptions rest_options;
  rest_options.qps = flags.kube_api_qps;
  rest_options.burst = flags.kube_api_burst;
  kube::ClusterConfig config =
      flags.kubeconfig.empty() ? kube::LoadInClusterConfig() : kube::LoadKubeconfig({flags.kubeconfig});
  SchedulerDriver driver(flags.driver, std::make_shared<kube::RestClient>(std::move(config), rest_options));
  driver.Start();
  std::unique_ptr<net::HttpServer> health;
  if (flags.metrics_port != 0) {
    health = ServeHealth(driver, flags.metrics_bind_address, static_cast<std::uint16_t>(flags.metrics_port));
  }
  const ExtenderOptions& ext = flags.driver.extender;
  spdlog::info(logging::JsonFields(
      "started", "schedulerName", flags.driver.scheduler_name, "extender", flags.extender_url, "weight",
      std::to_string(ext.weight), "bind", ext.bind_via_extender ? "extender:" + ext.bind_verb : "apiserver",
      "ignorable", ext.ignorable ? "true" : "false", "metrics", health ? health->BaseUrl() : "off"));

  stop.Wait();
  if (health) health->Stop();
  driver.Stop();  // The attempt in flight finishes first.
  const DriverCounters c = driver.Counters();
  spdlog::info(logging::JsonFields("stopped", "bound", std::to_string(c.bound), "bindingConflicts",
                                   std::to_string(c.binding_conflicts), "filterFailures",
                                   std::to_string(c.filter_failures), "extenderErrors",
                                   std::to_string(c.extender_errors)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  DriverFlags flags;
  if (auto code = ParseDriverFlags(argc, argv, flags, std::cout, std::cerr)) return *code;
  try {
    logging::SetUpJsonLogging("gangplank-scheduler-driver", flags.log_level);
    return Run(flags);
  } catch (const std::exception& e) {
    spdlog::critical(logging::JsonFields("fatal", "error", e.what()));
    return 1;
  }
}
