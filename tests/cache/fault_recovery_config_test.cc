// spec.faultRecovery of GPUPools and Queues (crds/): defaults as the CRD declares them, every field read,
// bad values refused naming the field, a queue's overrides applied over its pool's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cache/crd/pool_config.h"
#include "cache/crd/queue_config.h"
#include "cache/objects/decode_error.h"
#include "tests/cache/support/decode_errors.h"

namespace gangplank::cache {
namespace {

using Json = nlohmann::json;
using testing::ErrorOf;

PoolFaultRecovery PoolRecovery(const std::string& fault_recovery) {
  return PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"h100"},"spec":{"faultRecovery":)" + fault_recovery + "}}"))
      .fault_recovery;
}

std::string PoolError(const std::string& fault_recovery) {
  return ErrorOf([&] { PoolRecovery(fault_recovery); });
}

TEST(PoolFaultRecovery, DefaultsAsTheCrdDeclares) {
  const PoolFaultRecovery d;
  EXPECT_EQ(d.policy, FaultPolicy::kRestartGang);
  EXPECT_EQ(d.restart_limit, 3);
  EXPECT_EQ(d.backoff_seconds, 30);
  EXPECT_EQ(d.max_backoff_seconds, 600);
  EXPECT_EQ(d.node_grace_seconds, 60);
  EXPECT_EQ(d.below_minimum_grace_seconds, 300);
  EXPECT_EQ(d.checkpoint_grace_seconds, 120);
  EXPECT_FALSE(d.replace_members);
  EXPECT_EQ(d.node_faults.unhealthy_conditions, DefaultUnhealthyConditions());
  EXPECT_EQ(d.node_faults.quarantine_taints, DefaultQuarantineTaints());
  EXPECT_EQ(PoolConfigFromObject(Json::parse(R"({"metadata":{"name":"h100"},"spec":{}})")).fault_recovery, d);
  EXPECT_EQ(PoolRecovery("{}"), d);
  EXPECT_EQ(PoolRecovery("null"), d);
}

// What kube-apiserver stores for `faultRecovery: {}`: every default written out (the CRD's defaults).
TEST(PoolFaultRecovery, TheApiServersDefaultedObjectReadsAsTheDefaults) {
  Json defaulted = {{"policy", "RestartGang"},       {"restartLimit", 3},           {"backoffSeconds", 30},
                    {"maxBackoffSeconds", 600},      {"nodeGraceSeconds", 60},      {"belowMinimumGraceSeconds", 300},
                    {"checkpointGraceSeconds", 120}, {"replaceMembers", false}};
  defaulted["unhealthyConditions"] = {"KernelDeadlock", "ReadonlyFilesystem", "XfsShutdown", "GPUMissing", "XIDErrors",
                                      "NVLinkStatusInactive", "GpuMemWatch", "GpuNvlinkWatch", "GpuPcieWatch", "GpuSmWatch",
                                      "GpuInforomWatch", "GpuThermalWatch", "GpuPowerWatch", "GpuDriverWatch", "GpuMcuWatch",
                                      "GpuPmuWatch", "SysLogsXIDError", "SysLogsSXIDError", "SysLogsGPUFallenOff",
                                      "AcceleratedHardwareReady=False"};
  defaulted["quarantineTaints"] = {"nvidia.com/gpu-xid-error", "nvidia.com/gpu-nvlink-error", "nvidia.com/syslog-xid-error",
                                   "nvidia.com/gpu-error", "amd-gpu-unhealthy", "remediator.aks.microsoft.com/unschedulable"};
  EXPECT_EQ(PoolRecovery(defaulted.dump()), PoolFaultRecovery{});
}

TEST(PoolFaultRecovery, ReadsEveryField) {
  const PoolFaultRecovery r = PoolRecovery(R"({"policy":"FailGang","restartLimit":0,"backoffSeconds":10,
      "maxBackoffSeconds":10,"nodeGraceSeconds":0,"belowMinimumGraceSeconds":45,"checkpointGraceSeconds":0,
      "replaceMembers":true,"unhealthyConditions":["GpuMemWatch","example.com/FabricReady=False"],
      "quarantineTaints":["example.com/gpu-quarantine"]})");
  const PoolFaultRecovery expected{
      .policy = FaultPolicy::kFailGang,
      .restart_limit = 0,
      .backoff_seconds = 10,
      .max_backoff_seconds = 10,
      .node_grace_seconds = 0,
      .below_minimum_grace_seconds = 45,
      .checkpoint_grace_seconds = 0,
      .replace_members = true,
      .node_faults = {.unhealthy_conditions = {{"GpuMemWatch", "True"}, {"example.com/FabricReady", "False"}},
                      .quarantine_taints = {"example.com/gpu-quarantine"}}};
  EXPECT_EQ(r, expected);
  EXPECT_EQ(PoolRecovery(R"({"policy":"Ignore"})").policy, FaultPolicy::kIgnore);
  // A cap below the first wait caps it too: every wait is 20 s.
  EXPECT_EQ(PoolRecovery(R"({"maxBackoffSeconds":20})").max_backoff_seconds, 20);
  // Empty lists: no condition and no taint counts.
  const PoolFaultRecovery none = PoolRecovery(R"({"unhealthyConditions":[],"quarantineTaints":[]})");
  EXPECT_TRUE(none.node_faults.unhealthy_conditions.empty());
  EXPECT_TRUE(none.node_faults.quarantine_taints.empty());
}

TEST(PoolFaultRecovery, BadValuesNameTheField) {
  const std::string at = "spec.faultRecovery";
  EXPECT_EQ(PoolError(R"({"policy":"Retry"})"), at + ".policy: expected RestartGang, FailGang or Ignore, got 'Retry'");
  EXPECT_EQ(PoolError(R"({"policy":3})"), at + ".policy: expected a string");
  EXPECT_EQ(PoolError(R"({"restartLimit":-1})"), at + ".restartLimit: expected a whole number from 0 to 1000000000");
  EXPECT_EQ(PoolError(R"({"restartLimit":1.5})"), at + ".restartLimit: expected a whole number from 0 to 1000000000");
  EXPECT_EQ(PoolError(R"({"backoffSeconds":0})"), at + ".backoffSeconds: expected a whole number from 1 to 1000000000");
  EXPECT_EQ(PoolError(R"({"maxBackoffSeconds":0})"), at + ".maxBackoffSeconds: expected a whole number from 1 to 1000000000");
  EXPECT_EQ(PoolError(R"({"nodeGraceSeconds":-5})"), at + ".nodeGraceSeconds: expected a whole number from 0 to 1000000000");
  EXPECT_EQ(PoolError(R"({"belowMinimumGraceSeconds":"5m"})"),
            at + ".belowMinimumGraceSeconds: expected a whole number from 0 to 1000000000");
  EXPECT_EQ(PoolError(R"({"checkpointGraceSeconds":-1})"), at + ".checkpointGraceSeconds: expected a whole number from 0 to 1000000000");
  EXPECT_EQ(PoolError(R"({"replaceMembers":"yes"})"), at + ".replaceMembers: expected true or false");
  EXPECT_EQ(PoolError(R"({"unhealthyConditions":["GpuMemWatch","Kernel Deadlock"]})"),
            at + ".unhealthyConditions[1]: 'Kernel Deadlock' is not a condition type (e.g. KernelDeadlock) or type=status "
                 "(e.g. AcceleratedHardwareReady=False)");
  EXPECT_NE(PoolError(R"({"unhealthyConditions":["GpuMemWatch=Bad"]})").find(at + ".unhealthyConditions[0]: 'GpuMemWatch=Bad'"),
            std::string::npos);
  EXPECT_EQ(PoolError(R"({"unhealthyConditions":["KernelDeadlock","KernelDeadlock=True"]})"),
            at + ".unhealthyConditions[1]: condition KernelDeadlock=True is listed twice");
  EXPECT_EQ(PoolError(R"({"unhealthyConditions":"KernelDeadlock"})"), at + ".unhealthyConditions: expected a list of strings");
  EXPECT_EQ(PoolError(R"({"quarantineTaints":["nvidia.com/gpu-error","-bad"]})"),
            at + ".quarantineTaints[1]: '-bad' is not a taint key (e.g. nvidia.com/gpu-xid-error)");
  EXPECT_EQ(PoolError(R"({"quarantineTaints":["amd-gpu-unhealthy","amd-gpu-unhealthy"]})"),
            at + ".quarantineTaints[1]: taint amd-gpu-unhealthy is listed twice");
  EXPECT_EQ(PoolError(R"("RestartGang")"), at + ": expected an object");
}

TEST(PoolFaultRecovery, PolicyNames) {
  for (FaultPolicy p : {FaultPolicy::kRestartGang, FaultPolicy::kFailGang, FaultPolicy::kIgnore}) {
    EXPECT_EQ(FaultPolicyNamed(FaultPolicyName(p), "f"), p);
  }
  EXPECT_THROW(FaultPolicyNamed("restartgang", "f"), DecodeError);
}

QueueConfig Queue(const std::string& spec) {
  return QueueConfigFromObject(Json::parse(R"({"metadata":{"name":"team-llm"},"spec":)" + spec + "}"));
}

std::string QueueError(const std::string& spec) {
  return ErrorOf([&] { Queue(spec); });
}

TEST(QueueFaultRecovery, OverridesThePoolsPolicyAndLimitWhereSet) {
  const QueueConfig plain = Queue("{}");
  EXPECT_FALSE(plain.fault_recovery.policy);
  EXPECT_FALSE(plain.fault_recovery.restart_limit);
  PoolFaultRecovery pool;
  pool.restart_limit = 5;
  pool.checkpoint_grace_seconds = 90;
  const PoolFaultRecovery same = FaultRecoveryFor(pool, plain);
  EXPECT_EQ(same.policy, FaultPolicy::kRestartGang);
  EXPECT_EQ(same.restart_limit, 5);

  const QueueConfig strict = Queue(R"({"faultRecovery":{"policy":"FailGang","restartLimit":0}})");
  EXPECT_EQ(strict.fault_recovery.policy, FaultPolicy::kFailGang);
  EXPECT_EQ(strict.fault_recovery.restart_limit, 0);
  const PoolFaultRecovery effective = FaultRecoveryFor(pool, strict);
  EXPECT_EQ(effective.policy, FaultPolicy::kFailGang);
  EXPECT_EQ(effective.restart_limit, 0);
  EXPECT_EQ(effective.checkpoint_grace_seconds, 90);  // Only the two fields a Queue has.

  const QueueConfig limit_only = Queue(R"({"faultRecovery":{"restartLimit":10}})");
  EXPECT_EQ(FaultRecoveryFor(pool, limit_only).policy, FaultPolicy::kRestartGang);
  EXPECT_EQ(FaultRecoveryFor(pool, limit_only).restart_limit, 10);
}

TEST(QueueFaultRecovery, BadValuesNameTheField) {
  EXPECT_EQ(QueueError(R"({"faultRecovery":{"policy":"Requeue"}})"),
            "spec.faultRecovery.policy: expected RestartGang, FailGang or Ignore, got 'Requeue'");
  EXPECT_EQ(QueueError(R"({"faultRecovery":{"restartLimit":-2}})"),
            "spec.faultRecovery.restartLimit: expected a whole number from 0 to 1000000000");
  EXPECT_EQ(QueueError(R"({"faultRecovery":[]})"), "spec.faultRecovery: expected an object");
}

}  // namespace
}  // namespace gangplank::cache
