// One background thread running delayed and posted tasks (watch deadlines, bookmarks, delayed
// replies, watcher cleanup), so no HTTP listener thread ever sleeps or waits.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace gangplank::apiserver_double {

class TimerQueue {
 public:
  using Clock = std::chrono::steady_clock;

  TimerQueue() : thread_([this] { Run(); }) {}
  ~TimerQueue() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  void PostAt(Clock::time_point when, std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.emplace(when, std::move(task));
    }
    wake_.notify_all();
  }
  void PostAfter(std::chrono::milliseconds delay, std::function<void()> task) { PostAt(Clock::now() + delay, std::move(task)); }
  void Post(std::function<void()> task) { PostAt(Clock::now(), std::move(task)); }

 private:
  void Run() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      if (tasks_.empty()) {
        wake_.wait(lock);
        continue;
      }
      auto next = tasks_.begin();
      if (next->first > Clock::now()) {
        wake_.wait_until(lock, next->first);
        continue;
      }
      auto task = std::move(next->second);
      tasks_.erase(next);
      lock.unlock();
      try {
        task();
      } catch (...) {
        // A failing task must not end the timer thread; tasks report their own errors.
      }
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::multimap<Clock::time_point, std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: started after the other members exist
};

}  // namespace gangplank::apiserver_double
