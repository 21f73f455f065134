#include "extender/service/service_config.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <cstdlib>

namespace gangplank::extender {
namespace {

TEST(ServiceConfig, QueueFlagForms) {
  const cache::QueueConfig q = ParseQueueFlag("team-a:16:64");
  EXPECT_EQ(q.name, "team-a");
  ASSERT_NE(q.QuotaIn("any-pool"), nullptr);
  EXPECT_EQ(q.QuotaIn("any-pool")->guaranteed_gpus, 16);
  EXPECT_EQ(q.QuotaIn("any-pool")->limit_gpus, 64);
  EXPECT_FALSE(ParseQueueFlag("team-b:8").QuotaIn("p")->limit_gpus.has_value());
  EXPECT_THROW(ParseQueueFlag("team-c"), std::invalid_argument);
  EXPECT_THROW(ParseQueueFlag("team-c:x"), std::invalid_argument);
  EXPECT_THROW(ParseQueueFlag("team-c:8:4"), std::invalid_argument);
  EXPECT_THROW(ParseQueueFlag(":1:2"), std::invalid_argument);
}

TEST(ServiceConfig, FlagsAndEnvironmentFillEverySetting) {
  ::setenv("GANGPLANK_EXTENDER_MAX_BODY_BYTES", "1234", 1);
  ::setenv("GANGPLANK_EXTENDER_MANAGED_RESOURCE", "nvidia.com/gpu,gangplank.io/gpu-milli", 1);
  ::setenv("GANGPLANK_EXTENDER_ASSUMED_POD_TTL_SECONDS", "45", 1);
  CLI::App app;
  ServiceConfig c;
  AddServiceFlags(app, c);
  const char* argv[] = {"x", "--port", "9999", "--path-prefix", "/gp", "--topology-keys", "zone,rack",
                        "--queue", "a:1:2", "--queue", "b:0", "--policy", "bestfit", "--bind-verb", "bind"};
  app.parse(static_cast<int>(std::size(argv)), const_cast<char**>(argv));
  ::unsetenv("GANGPLANK_EXTENDER_MAX_BODY_BYTES");
  ::unsetenv("GANGPLANK_EXTENDER_MANAGED_RESOURCE");
  ::unsetenv("GANGPLANK_EXTENDER_ASSUMED_POD_TTL_SECONDS");
  EXPECT_EQ(c.port, 9999);
  EXPECT_EQ(c.routes.prefix, "/gp");
  EXPECT_EQ(c.max_body_bytes, 1234u);
  EXPECT_EQ(c.handlers.managed_resources, (std::vector<std::string>{"nvidia.com/gpu", "gangplank.io/gpu-milli"}));
  EXPECT_EQ(c.topology_keys, (std::vector<std::string>{"zone", "rack"}));
  ASSERT_EQ(c.queues.size(), 2u);
  EXPECT_EQ(c.queues[1].name, "b");
  EXPECT_EQ(c.handlers.policy, "bestfit");
  EXPECT_EQ(c.routes.bind_verb, "bind");
  EXPECT_EQ(ServiceConfig{}.routes.bind_verb, "");  // kube-scheduler binds unless told otherwise.
  EXPECT_EQ(c.assumed_pod_ttl_seconds, 45);
  EXPECT_EQ(ServiceConfig{}.assumed_pod_ttl_seconds, 900);  // kube-scheduler's 15 minutes.
  CLI::App bad;
  ServiceConfig d;
  AddServiceFlags(bad, d);
  const char* wrong[] = {"x", "--log-level", "loud"};
  EXPECT_THROW(bad.parse(3, const_cast<char**>(wrong)), CLI::ValidationError);
  CLI::App negative;
  ServiceConfig e;
  AddServiceFlags(negative, e);
  const char* below_zero[] = {"x", "--assumed-pod-ttl-seconds", "-5"};
  EXPECT_THROW(negative.parse(3, const_cast<char**>(below_zero)), CLI::ValidationError);
}

// Mirrors the operator's --default-queue (same flag, same meaning), so the chart gives both one value.
TEST(ServiceConfig, DefaultQueueFromFlagOrEnvironment) {
  EXPECT_EQ(ServiceConfig{}.default_queue, "");  // No default: a pod naming no queue is in none.
  CLI::App flag_app;
  ServiceConfig by_flag;
  AddServiceFlags(flag_app, by_flag);
  const char* argv[] = {"x", "--default-queue", "default"};
  flag_app.parse(3, const_cast<char**>(argv));
  EXPECT_EQ(by_flag.default_queue, "default");
  ::setenv("GANGPLANK_EXTENDER_DEFAULT_QUEUE", "shared", 1);
  CLI::App env_app;
  ServiceConfig by_env;
  AddServiceFlags(env_app, by_env);
  const char* none[] = {"x"};
  env_app.parse(1, const_cast<char**>(none));
  ::unsetenv("GANGPLANK_EXTENDER_DEFAULT_QUEUE");
  EXPECT_EQ(by_env.default_queue, "shared");
  EXPECT_NE(env_app.help().find("--default-queue"), std::string::npos);
}

}  // namespace
}  // namespace gangplank::extender
