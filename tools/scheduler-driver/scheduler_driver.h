// SchedulerDriver: kube-scheduler's part for one profile and one extender, as a library. Informers on
// pods (raw JSON, so the extender gets the pod as the informer has it) and nodes feed the cluster view and
// the scheduling queue; one thread runs the scheduling cycle, one pod at a time, once the caches have
// synced. A new driver starts clean: everything it knows comes from its informers.
//
//   SchedulerDriver driver(options, std::make_shared<kube::RestClient>(kube::load_kubeconfig({path})));
//   driver.Start();
//   ... driver.Counters().bound ...
//   driver.Stop();
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "cache/feed/shared_informers.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "kube/rest_client.h"
#include "tools/scheduler-driver/cluster_view.h"
#include "tools/scheduler-driver/driver_metrics.h"
#include "tools/scheduler-driver/driver_options.h"
#include "tools/scheduler-driver/extender_client.h"
#include "tools/scheduler-driver/pod_binder.h"
#include "tools/scheduler-driver/pod_condition_writer.h"
#include "tools/scheduler-driver/scheduling_cycle.h"
#include "tools/scheduler-driver/scheduling_queue.h"

namespace gangplank::scheduler_driver {

class SchedulerDriver {
 public:
  SchedulerDriver(DriverOptions options, std::shared_ptr<kube::RestClient> rest);
  ~SchedulerDriver();
  SchedulerDriver(const SchedulerDriver&) = delete;
  SchedulerDriver& operator=(const SchedulerDriver&) = delete;

  // Starts the informers and the scheduling thread (which waits for the pod and node caches to sync).
  void Start();
  // Lets the attempt in flight finish, then stops the thread and the informers. Idempotent.
  void Stop();

  bool WaitForSync(std::chrono::milliseconds timeout);
  bool synced() const { return synced_.load(); }

  DriverCounters Counters() const { return metrics_.Counters(); }
  DriverMetrics& metrics() { return metrics_; }
  std::size_t Waiting() const { return queue_.Waiting(); }

 private:
  void OnPod(const std::shared_ptr<const kube::GenericObject>& raw);
  void OnPodDeleted(const std::string& key);
  void OnNode(const kube::Node* before, const kube::Node& after);
  void Run();

  const DriverOptions options_;
  std::shared_ptr<kube::Client> client_;
  cache::SharedInformers informers_;
  kube::Informer<kube::GenericObject>& pods_;
  kube::Informer<kube::Node>& nodes_;
  ClusterView view_;
  SchedulingQueue queue_;
  DriverMetrics metrics_;
  ExtenderClient extender_;
  PodBinder binder_;
  PodConditionWriter conditions_;
  kube::EventRecorder events_;
  SchedulingCycle cycle_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<bool> synced_{false};
};

}  // namespace gangplank::scheduler_driver
