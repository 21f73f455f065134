#include "base/parallel_tasks.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gangplank::base {

void RunTasks(std::size_t total, int threads, const std::function<void(std::size_t)>& task) {
  if (total <= 1 || threads <= 1) {  // Nothing to overlap: no thread to start (most rounds admit one gang).
    for (std::size_t i = 0; i < total; ++i) task(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto worker = [&] {
    while (true) {
      const std::size_t i = next.fetch_add(1);
      if (i >= total) return;
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(total);  // Stop handing out work.
        return;
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    const int n = std::min<int>(threads, static_cast<int>(total));  // Both at least 2 here.
    for (int i = 0; i < n; ++i) pool.emplace_back(worker);
  }  // jthreads join here.
  if (error) std::rethrow_exception(error);
}

}  // namespace gangplank::base
