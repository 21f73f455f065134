#include "operator/utilization/utilization_poller.h"

#include <chrono>
#include <map>
#include <utility>

#include <spdlog/spdlog.h>

#include "logging/json_log.h"

namespace gangplank::op {
namespace {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

UtilizationPoller::UtilizationPoller(UtilizationSource& source, UsageMetrics* metrics, UtilizationPollerOptions options,
                                     std::function<std::vector<cache::PoolConfig>()> pools,
                                     std::function<void()> on_read)
    : source_(source), metrics_(metrics), options_(std::move(options)), pools_(std::move(pools)),
      on_read_(std::move(on_read)) {
  if (options_.query.empty()) options_.query = kDefaultUtilizationQuery;
}

UtilizationPoller::~UtilizationPoller() { Stop(); }

void UtilizationPoller::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void UtilizationPoller::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void UtilizationPoller::Loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    try {
      PollOnce(WallSeconds());
      if (on_read_) on_read_();
    } catch (const std::exception& e) {
      spdlog::error(logging::JsonFields("utilization poll failed", "error", e.what()));
    }
    lock.lock();
    wake_.wait_for(lock, std::chrono::duration<double>(options_.interval_seconds), [this] { return stopping_; });
  }
}

void UtilizationPoller::PollOnce(double now) {
  auto snapshots = std::make_shared<UtilizationSnapshots>();
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const PodUtilizationSnapshot>> reads;
  for (const cache::PoolConfig& pool : pools_()) {
    const std::string& url = pool.utilization.prometheus_url.empty() ? options_.prometheus_url : pool.utilization.prometheus_url;
    if (url.empty()) continue;
    const std::string& query = pool.utilization.query.empty() ? options_.query : pool.utilization.query;
    auto& read = reads[{url, query}];
    if (!read) {
      read = std::make_shared<const PodUtilizationSnapshot>(source_.Read(url, query, now));
      if (!read->ok) {
        spdlog::warn(logging::JsonFields("cannot read GPU utilization", "prometheus", url, "error", read->error));
      }
    }
    if (metrics_) metrics_->UtilizationRead(pool.name, read->ok, read->reason);
    (*snapshots)[pool.name] = read;
  }
  std::lock_guard lock(mu_);
  latest_ = std::move(snapshots);
}

std::shared_ptr<const UtilizationSnapshots> UtilizationPoller::Latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

}  // namespace gangplank::op
