// PodBinder on the API server: POST pods/<name>/binding through kube::Client::bind_pod, on a small pool
// of worker threads so a slow API server never holds the HTTP server's io threads (kube-scheduler binds
// many pods at once, each in its own goroutine).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "extender/service/pod_binder.h"

namespace gangplank::kube {
class RestClient;
}

namespace gangplank::extender {

class KubeBinder final : public PodBinder {
 public:
  KubeBinder(std::shared_ptr<kube::RestClient> client, int workers = 4);
  ~KubeBinder() override;  // Finishes the bindings already queued, then joins the workers.
  KubeBinder(const KubeBinder&) = delete;
  KubeBinder& operator=(const KubeBinder&) = delete;

  void Bind(ExtenderBindingArgs args, std::function<void(std::string error)> done) override;

 private:
  struct Job {
    ExtenderBindingArgs args;
    std::function<void(std::string)> done;
  };
  void Work();
  std::string BindNow(const ExtenderBindingArgs& args);

  std::shared_ptr<kube::RestClient> client_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gangplank::extender
