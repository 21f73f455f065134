// Flags and environment: what the driver accepts, and the binary's answer to bad flags (exit code 2 and
// a message naming the flag) and to --help.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/support/subprocess.h"
#include "tools/scheduler-driver/driver_flags.h"

namespace gangplank::scheduler_driver {
namespace {

struct Parsed {
  std::optional<int> exit;
  DriverFlags flags;
  std::string out, err;
};

Parsed Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gangplank-scheduler-driver");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  Parsed p;
  std::ostringstream out, err;
  p.exit = ParseDriverFlags(static_cast<int>(argv.size()), argv.data(), p.flags, out, err);
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(DriverFlags, DefaultsAreKubeSchedulersAndEveryKnobIsAFlag) {
  Parsed p = Parse({"--extender-url", "http://127.0.0.1:8888/gangplank/"});
  ASSERT_FALSE(p.exit) << p.err;
  const ExtenderOptions& e = p.flags.driver.extender;
  EXPECT_EQ(e.base_url, "http://127.0.0.1:8888");
  EXPECT_EQ(e.path_prefix, "/gangplank");
  EXPECT_EQ(e.url("filter"), "http://127.0.0.1:8888/gangplank/filter");
  EXPECT_EQ(e.weight, 5);
  EXPECT_EQ(e.timeout, std::chrono::seconds(5));
  EXPECT_FALSE(e.ignorable);
  EXPECT_FALSE(e.bind_via_extender);
  EXPECT_EQ(p.flags.driver.scheduler_name, "gangplank");
  EXPECT_EQ(p.flags.driver.initial_backoff, std::chrono::seconds(1));
  EXPECT_EQ(p.flags.driver.max_backoff, std::chrono::seconds(10));

  p = Parse({"--extender-url", "http://e:1", "--scheduler-name", "other", "--weight", "3", "--bind-via-extender",
             "--extender-ignorable=true", "--extender-timeout", "1m30s", "--pod-max-backoff-seconds", "2.5",
             "--metrics-port", "0", "--log-level", "debug"});
  ASSERT_FALSE(p.exit) << p.err;
  EXPECT_EQ(p.flags.driver.extender.path_prefix, "");
  EXPECT_EQ(p.flags.driver.scheduler_name, "other");
  EXPECT_EQ(p.flags.driver.extender.weight, 3);
  EXPECT_TRUE(p.flags.driver.extender.bind_via_extender);
  EXPECT_TRUE(p.flags.driver.extender.ignorable);
  EXPECT_EQ(p.flags.driver.extender.timeout, std::chrono::seconds(90));
  EXPECT_EQ(p.flags.driver.max_backoff, std::chrono::milliseconds(2500));
  EXPECT_EQ(p.flags.metrics_port, 0);
}

TEST(DriverFlags, BadValuesAreUsageErrorsThatNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{}, "--extender-url"},
      {{"--extender-url", "127.0.0.1:8888"}, "--extender-url"},
      {{"--extender-url", "http://e:1", "--weight", "0"}, "--weight"},
      {{"--extender-url", "http://e:1", "--weight", "many"}, "--weight"},
      {{"--extender-url", "http://e:1", "--extender-timeout", "5 parsecs"}, "--extender-timeout"},
      {{"--extender-url", "http://e:1", "--log-level", "loud"}, "--log-level"},
      {{"--extender-url", "http://e:1", "--metrics-port", "70000"}, "--metrics-port"},
      {{"--extender-url", "http://e:1", "--pod-initial-backoff-seconds", "5", "--pod-max-backoff-seconds", "1"},
       "--pod-max-backoff-seconds"},
      {{"--extender-url", "http://e:1", "--no-such-flag"}, "--no-such-flag"},
  };
  for (const auto& [args, named] : cases) {
    const Parsed p = Parse(args);
    EXPECT_EQ(p.exit, kUsageExitCode) << named;
    EXPECT_NE(p.err.find(named), std::string::npos) << p.err;
  }
}

TEST(DriverFlags, DurationsAsKubeSchedulerWritesThem) {
  EXPECT_EQ(ParseDuration("5s"), std::chrono::seconds(5));
  EXPECT_EQ(ParseDuration("250ms"), std::chrono::milliseconds(250));
  EXPECT_EQ(ParseDuration("1.5s"), std::chrono::milliseconds(1500));
  EXPECT_EQ(ParseDuration("2"), std::chrono::seconds(2));
  EXPECT_EQ(ParseDuration("1h1m"), std::chrono::seconds(3660));
  EXPECT_THROW(ParseDuration(""), std::invalid_argument);
  EXPECT_THROW(ParseDuration("s"), std::invalid_argument);
  EXPECT_THROW(ParseDuration("3d"), std::invalid_argument);
}

TEST(DriverBinary, BadFlagsAndEnvironmentExitTwoWithAClearMessage) {
  using gangplank::testing::run_process;
  auto r = run_process({GANGPLANK_SCHEDULER_DRIVER_BINARY, "--extender-url", "http://127.0.0.1:1", "--weight", "-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--weight must be a positive number"), std::string::npos) << r.err;
  r = run_process({GANGPLANK_SCHEDULER_DRIVER_BINARY});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--extender-url is required"), std::string::npos) << r.err;
  // From the environment, the same checks.
  r = run_process({"/usr/bin/env", "GANGPLANK_SCHEDULER_DRIVER_EXTENDER_URL=http://127.0.0.1:1",
                   "GANGPLANK_SCHEDULER_DRIVER_EXTENDER_TIMEOUT=soon", GANGPLANK_SCHEDULER_DRIVER_BINARY});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--extender-timeout"), std::string::npos) << r.err;
  // A kubeconfig that does not exist is not a usage error but a fatal one, logged as JSON.
  r = run_process({GANGPLANK_SCHEDULER_DRIVER_BINARY, "--extender-url", "http://127.0.0.1:1", "--kubeconfig",
                   "/nonexistent/kubeconfig", "--metrics-port", "0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(R"("msg":"fatal")"), std::string::npos) << r.err;
}

TEST(DriverBinary, HelpExplainsAndExitsZero) {
  const auto r = gangplank::testing::run_process({GANGPLANK_SCHEDULER_DRIVER_BINARY, "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* needle : {"--extender-url", "--bind-via-extender", "--weight", "score x weight x 10",
                             "GANGPLANK_SCHEDULER_DRIVER_EXTENDER_URL", "PodScheduled=False"}) {
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle << "\n" << r.out;
  }
}

}  // namespace
}  // namespace gangplank::scheduler_driver
