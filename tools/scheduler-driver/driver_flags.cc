#include "tools/scheduler-driver/driver_flags.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cmath>
#include <stdexcept>

#include "process/env_flags.h"

namespace gangplank::scheduler_driver {
namespace {

constexpr const char* kDescription =
    "gangplank-scheduler-driver: plays kube-scheduler's part for one profile (--scheduler-name) with one "
    "scheduler extender (nodeCacheCapable: true), so the gangplank extender can be run end to end without a "
    "kube-scheduler.";

constexpr const char* kFooter = R"(What it does, per pod that names --scheduler-name, has no node, no scheduling gates, is Pending
and not being deleted (highest spec.priority first, then oldest):
  1. in-tree filters on every node: cordon, NoSchedule/NoExecute taints, nodeSelector, free cpu, memory,
     nvidia.com/gpu and pod slots (counting pods this driver bound that the informer has not shown yet);
  2. POST <extender-url>/<filter-verb> {"Pod":...,"Nodes":null,"NodeNames":[...]};
  3. with more than one node left, POST <extender-url>/<prioritize-verb>; total = score x weight x 10;
     the highest total wins, ties go to the lowest node name;
  4. POST pods/<name>/binding to the API server, or <extender-url>/<bind-verb> with --bind-via-extender.
No node fits: PodScheduled=False (Unschedulable) with the reasons, a FailedScheduling event, and a retry
after 1 s doubling to 10 s, at once when nodes or pods change. The extender fails: PodScheduled=False
(SchedulerError) and a retry; never bound without the extender unless --extender-ignorable.
Serves /healthz, /readyz and /metrics on --metrics-port. SIGTERM/SIGINT: finish the attempt, exit 0.
Every flag can be set by the environment: GANGPLANK_SCHEDULER_DRIVER_<FLAG>, e.g.
GANGPLANK_SCHEDULER_DRIVER_EXTENDER_URL. Exit codes: 0 clean stop, 1 fatal error, 2 bad flags.)";

std::chrono::milliseconds Seconds(double seconds, const std::string& flag) {
  if (!(seconds > 0) || !std::isfinite(seconds)) throw std::invalid_argument(flag + " must be more than 0");
  return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000)));
}

}  // namespace

std::chrono::milliseconds ParseDuration(std::string_view text) {
  const std::string original(text);
  if (text.empty()) throw std::invalid_argument("empty duration");
  double total_ms = 0;
  bool bare_number = true;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    if (start == i) throw std::invalid_argument("bad duration '" + original + "' (use e.g. 5s, 500ms, 1m30s)");
    double value = 0;
    try {
      value = std::stod(std::string(text.substr(start, i - start)));
    } catch (const std::exception&) {
      throw std::invalid_argument("bad duration '" + original + "'");
    }
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    const std::string_view unit = text.substr(unit_start, i - unit_start);
    if (unit.empty()) {
      if (!bare_number || i != text.size() || start != 0) throw std::invalid_argument("bad duration '" + original + "'");
      return std::chrono::milliseconds(static_cast<long long>(std::llround(value * 1000)));
    }
    bare_number = false;
    if (unit == "ms") total_ms += value;
    else if (unit == "s") total_ms += value * 1000;
    else if (unit == "m") total_ms += value * 60000;
    else if (unit == "h") total_ms += value * 3600000;
    else throw std::invalid_argument("bad duration unit '" + std::string(unit) + "' in '" + original + "' (ms, s, m, h)");
  }
  return std::chrono::milliseconds(static_cast<long long>(std::llround(total_ms)));
}

void SplitExtenderUrl(const std::string& url, ExtenderOptions& out) {
  const size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    throw std::invalid_argument("--extender-url must start with http:// or https://, got '" + url + "'");
  }
  const size_t host_start = scheme_end + 3;
  const size_t path_start = url.find('/', host_start);
  const std::string host = url.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
  if (host.empty() || host.find_first_of("?#@ ") != std::string::npos) {
    throw std::invalid_argument("--extender-url has no usable host: '" + url + "'");
  }
  out.base_url = scheme + "://" + host;
  std::string prefix = path_start == std::string::npos ? "" : url.substr(path_start);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();  // strings.TrimRight(urlPrefix, "/")
  out.path_prefix = prefix;
}

void AddDriverFlags(CLI::App& app, DriverFlags& f) {
  app.description(kDescription);
  app.footer(kFooter);
  process::EnvFlags flags(app, "GANGPLANK_SCHEDULER_DRIVER_");
  flags.Option("extender-url", f.extender_url,
               "The extender's urlPrefix, e.g. http://127.0.0.1:8888/gangplank; verbs are POSTed to <url>/<verb> "
               "(required)")
      ->required();
  flags.Option("scheduler-name", f.driver.scheduler_name, "Schedule pods whose spec.schedulerName is this");
  flags.Option("weight", f.driver.extender.weight, "Extender weight: a node's total is score x weight x 10");
  flags.Option("filter-verb", f.driver.extender.filter_verb, "filterVerb (empty: no extender filter)");
  flags.Option("prioritize-verb", f.driver.extender.prioritize_verb, "prioritizeVerb (empty: no scores)");
  flags.Option("bind-verb", f.driver.extender.bind_verb, "bindVerb, used with --bind-via-extender");
  flags.Switch("bind-via-extender", f.driver.extender.bind_via_extender,
               "Bind through the extender's bind verb instead of POSTing pods/binding to the API server");
  flags.Switch("extender-ignorable", f.driver.extender.ignorable,
               "ignorable: a failing extender is skipped (filter: every in-tree feasible node passes; bind: the API "
               "server binds) instead of failing the attempt");
  flags.Option("extender-timeout", f.extender_timeout, "httpTimeout of each extender call (5s, 500ms, 1m)");
  flags.Option("pod-initial-backoff-seconds", f.pod_initial_backoff_seconds, "First retry delay of a pod that failed");
  flags.Option("pod-max-backoff-seconds", f.pod_max_backoff_seconds,
               "Longest retry delay (the delay doubles per failure)");
  flags.Option("kubeconfig", f.kubeconfig, "kubeconfig file; empty: the in-cluster service account");
  flags.Option("kube-api-qps", f.kube_api_qps, "Client-side QPS limit towards the API server");
  flags.Option("kube-api-burst", f.kube_api_burst, "Client-side burst towards the API server");
  flags.Option("metrics-bind-address", f.metrics_bind_address, "Address of the /healthz, /readyz and /metrics server");
  flags.Option("metrics-port", f.metrics_port, "Port of the /healthz, /readyz and /metrics server (0: off)")
      ->check(CLI::Range(0, 65535));
  flags.Option("log-level", f.log_level, "JSON logs on stderr at this level: trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
}

void FinishDriverFlags(DriverFlags& f) {
  SplitExtenderUrl(f.extender_url, f.driver.extender);
  if (f.driver.scheduler_name.empty()) throw std::invalid_argument("--scheduler-name must not be empty");
  if (f.driver.extender.weight <= 0) {
    throw std::invalid_argument("--weight must be a positive number (kube-scheduler: \"must have a positive weight\")");
  }
  if (f.driver.extender.bind_via_extender && f.driver.extender.bind_verb.empty()) {
    throw std::invalid_argument("--bind-via-extender needs a --bind-verb");
  }
  try {
    f.driver.extender.timeout = ParseDuration(f.extender_timeout);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--extender-timeout: ") + e.what());
  }
  if (f.driver.extender.timeout.count() <= 0) throw std::invalid_argument("--extender-timeout must be more than 0");
  f.driver.initial_backoff = Seconds(f.pod_initial_backoff_seconds, "--pod-initial-backoff-seconds");
  f.driver.max_backoff = Seconds(f.pod_max_backoff_seconds, "--pod-max-backoff-seconds");
  if (f.driver.max_backoff < f.driver.initial_backoff) {
    throw std::invalid_argument("--pod-max-backoff-seconds must not be below --pod-initial-backoff-seconds");
  }
  if (!(f.kube_api_qps > 0) || f.kube_api_burst < 1) {
    throw std::invalid_argument("--kube-api-qps must be more than 0 and --kube-api-burst at least 1");
  }
}

std::optional<int> ParseDriverFlags(int argc, const char* const* argv, DriverFlags& flags, std::ostream& out,
                                    std::ostream& err) {
  CLI::App app;
  app.name(argc > 0 ? argv[0] : "gangplank-scheduler-driver");
  AddDriverFlags(app, flags);
  try {
    app.parse(argc, argv);
    FinishDriverFlags(flags);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "error: " << e.what() << "\nRun with --help to see every flag.\n";
    return kUsageExitCode;
  } catch (const std::invalid_argument& e) {
    err << "error: " << e.what() << "\nRun with --help to see every flag.\n";
    return kUsageExitCode;
  }
  return std::nullopt;
}

}  // namespace gangplank::scheduler_driver
