// spec.utilization, spec.idlePolicy and spec.fairShare of GPUPools, and spec.idlePolicy of Queues (crds/):
// defaults as the CRD declares them, every field read, bad values refused naming the field, a queue's
// overrides applied over its pool's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cache/crd/pool_config.h"
#include "cache/crd/queue_config.h"
#include "cache/objects/decode_error.h"
#include "tests/cache/support/pool_spec.h"

namespace gangplank::cache {
namespace {

using Json = nlohmann::json;

using testing::ErrorOf;

PoolConfig Pool(const std::string& spec) { return testing::PoolOfSpec(spec); }
std::string PoolError(const std::string& spec) { return testing::PoolSpecError(spec); }

TEST(PoolUtilizationConfig, AnAbsentOrEmptySpecIsOffWithTheCrdsDefaults) {
  for (const char* spec : {"{}", R"({"utilization":{},"idlePolicy":{},"fairShare":{}})"}) {
    const PoolConfig p = Pool(spec);
    EXPECT_EQ(p.utilization, PoolUtilization{});
    EXPECT_EQ(p.idle, IdlePolicyConfig{});
    EXPECT_EQ(p.idle.action, IdleAction::kOff);
    EXPECT_EQ(p.idle.threshold_percent, 5);
    EXPECT_EQ(p.idle.idle_seconds, 3600);
    EXPECT_EQ(p.idle.min_age_seconds, 1800);
    EXPECT_TRUE(p.idle.allow_opt_out);
    EXPECT_EQ(p.fair_share.usage_half_life_seconds, 0);
    EXPECT_EQ(p.fair_share.usage_window_seconds, 604800);
    EXPECT_EQ(p.fair_share.usage_weight, 1);
  }
}

TEST(PoolUtilizationConfig, EveryFieldIsRead) {
  const PoolConfig p = Pool(R"json({
    "utilization": {"prometheusURL": "https://prom.monitoring:9090", "query": "avg by (namespace, pod) (X)"},
    "idlePolicy": {"action": "Reclaim", "thresholdPercent": 2.5, "idleSeconds": 7200, "minAgeSeconds": 600,
                   "allowOptOut": false},
    "fairShare": {"usageHalfLifeSeconds": 86400, "usageWindowSeconds": 1209600, "usageWeight": 0.5}})json");
  EXPECT_EQ(p.utilization.prometheus_url, "https://prom.monitoring:9090");
  EXPECT_EQ(p.utilization.query, "avg by (namespace, pod) (X)");
  EXPECT_EQ(p.idle.action, IdleAction::kReclaim);
  EXPECT_EQ(p.idle.threshold_percent, 2.5);
  EXPECT_EQ(p.idle.idle_seconds, 7200);
  EXPECT_EQ(p.idle.min_age_seconds, 600);
  EXPECT_FALSE(p.idle.allow_opt_out);
  EXPECT_EQ(p.fair_share.usage_half_life_seconds, 86400);
  EXPECT_EQ(p.fair_share.usage_window_seconds, 1209600);
  EXPECT_EQ(p.fair_share.usage_weight, 0.5);
}

TEST(PoolUtilizationConfig, BadValuesAreRefusedNamingTheField) {
  EXPECT_EQ(PoolError(R"({"idlePolicy":{"action":"Evict"}})"),
            "spec.idlePolicy.action: expected Off, Report, Preemptible or Reclaim, got 'Evict'");
  EXPECT_NE(PoolError(R"({"idlePolicy":{"thresholdPercent":101}})").find("spec.idlePolicy.thresholdPercent"),
            std::string::npos);
  EXPECT_NE(PoolError(R"({"idlePolicy":{"idleSeconds":0}})").find("spec.idlePolicy.idleSeconds"), std::string::npos);
  EXPECT_NE(PoolError(R"({"idlePolicy":{"minAgeSeconds":-1}})").find("spec.idlePolicy.minAgeSeconds"), std::string::npos);
  EXPECT_NE(PoolError(R"({"utilization":{"prometheusURL":"prom:9090"}})").find("spec.utilization.prometheusURL"),
            std::string::npos);
  EXPECT_NE(PoolError(R"({"fairShare":{"usageWindowSeconds":0}})").find("spec.fairShare.usageWindowSeconds"),
            std::string::npos);
  EXPECT_NE(PoolError(R"({"fairShare":{"usageWeight":"high"}})").find("spec.fairShare.usageWeight"), std::string::npos);
  EXPECT_NE(PoolError(R"({"idlePolicy":"Report"})").find("spec.idlePolicy"), std::string::npos);
}

TEST(QueueIdlePolicyConfig, TheQueuesFieldsReplaceThePoolsAndTheRestAreKept) {
  const QueueConfig q = QueueConfigFromObject(Json::parse(
      R"({"metadata":{"name":"research"},"spec":{"idlePolicy":{"action":"Preemptible","idleSeconds":600}}})"));
  IdlePolicyConfig pool;
  pool.action = IdleAction::kReport;
  pool.threshold_percent = 10;
  const IdlePolicyConfig merged = IdlePolicyFor(pool, q.idle);
  EXPECT_EQ(merged.action, IdleAction::kPreemptible);
  EXPECT_EQ(merged.idle_seconds, 600);
  EXPECT_EQ(merged.threshold_percent, 10);
  EXPECT_EQ(merged.min_age_seconds, 1800);
  const QueueConfig plain = QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"plain"},"spec":{}})"));
  EXPECT_EQ(IdlePolicyFor(pool, plain.idle), pool);
  EXPECT_NE(ErrorOf([] {
              QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"q"},"spec":{"idlePolicy":{"action":"off"}}})"));
            }).find("spec.idlePolicy.action"),
            std::string::npos);
}

}  // namespace
}  // namespace gangplank::cache
