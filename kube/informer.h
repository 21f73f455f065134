// Informer: a reflector (LIST then WATCH, resuming and relisting as the API semantics require) feeding
// a cache of compact typed objects with secondary indexes, plus event handlers that run on their own
// dispatcher thread — never on the thread that reads the watch socket, so a slow handler can never make
// the apiserver drop us as an unresponsive watcher.
//
// Reflector rules honoured (client-go's reflector; "Efficient detection of changes" and "Resource
// versions" in https://kubernetes.io/docs/reference/using-api/api-concepts/):
//  - first list RV="0" (cache), later relists RV unset (consistent); paginated, looping on `continue`.
//  - watch from the list's RV, then from the RV of the last event processed (bookmarks included); the RV
//    is never advanced during synthetic ADDED events of a watch started from ""/"0".
//  - clean end of stream -> re-watch from the last RV; 410 (HTTP or in-stream ERROR) -> relist;
//    429 -> wait Retry-After and re-watch; 5xx / transport errors -> jittered backoff then re-watch.
//  - every relist diffs the cache: objects gone from the new list are reported as deletions with a
//    tombstone carrying the last known state (final_state_unknown = true).
//  - resourceVersions are compared for equality only; an event whose RV equals the cached one is not
//    re-delivered, so handlers see each (object, resourceVersion) at most once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kube/api_error.h"
#include "kube/backoff.h"
#include "kube/list_watch.h"
#include "kube/rest_client.h"

namespace gangplank::kube {

struct InformerOptions {
  std::string namespace_;  // empty = all namespaces (or cluster-scoped)
  std::string label_selector;
  std::string field_selector;
  long page_size = 500;
  // Watch requests ask for timeoutSeconds uniformly in [min, 2*min] to spread reconnects.
  std::chrono::seconds min_watch_timeout{300};
  // No byte for this long means the connection is dead (bookmarks arrive about every minute).
  std::chrono::milliseconds idle_timeout{120000};
  BackoffPolicy backoff{};
  // A watch that ends this quickly with no event is treated as a failure and backs off.
  std::chrono::milliseconds short_watch{1000};
  // After this many watch failures in a row (5xx, transport), relist instead of re-watching: the server
  // may be unable to serve our resume point (client-go bounds 500 retries by a deadline likewise).
  int watch_failures_before_relist = 5;
  // Called (on the reflector thread) with a description of every list/watch failure; for logging.
  std::function<void(const std::string& what)> on_error;
};

struct InformerStats {
  long lists = 0;          // completed list operations (initial + relists)
  long relists_after_expired = 0;
  long watches = 0;        // watch requests started
  long watch_errors = 0;   // watches that ended with an error
  long events = 0;         // watch events applied (excluding bookmarks)
  long bookmarks = 0;
  // List and watch failures since the last sign of a working connection (a list, an event or bookmark
  // applied, a watch that ended cleanly): 0 while healthy. Readiness checks read it, since a cache whose
  // watches keep failing goes stale while still reporting itself synced.
  long consecutive_failures = 0;
  // A watch is open: the server answered 200 and the stream has not ended. After an outage the resumed
  // watch of a quiet resource brings no event until its next bookmark (a minute or so), yet the
  // connection works: readiness counts the failures above only while no watch is open.
  bool watch_open = false;
};

template <class T>
class Informer {
 public:
  using Ptr = std::shared_ptr<const T>;
  using IndexFunc = std::function<std::vector<std::string>(const T&)>;

  struct Handlers {
    std::function<void(const Ptr&)> on_add;
    std::function<void(const Ptr& old_object, const Ptr& new_object)> on_update;
    // final_state_unknown: the delete was missed while disconnected and found by a relist; `last` is the
    // last state this cache knew (client-go's DeletedFinalStateUnknown).
    std::function<void(const Ptr& last, bool final_state_unknown)> on_delete;
  };

  Informer(std::shared_ptr<RestClient> client, ResourceDescriptor resource, InformerOptions options = {})
      : client_(std::move(client)), resource_(std::move(resource)), options_(std::move(options)),
        backoff_(options_.backoff), rng_(std::random_device{}()) {}

  ~Informer() { Stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Configuration: call before start().
  void AddIndex(const std::string& name, IndexFunc func) {
    std::lock_guard lock(store_mutex_);
    index_funcs_[name] = std::move(func);
    indexes_[name];
  }
  void AddHandlers(Handlers handlers) {
    std::lock_guard lock(queue_mutex_);
    handlers_.push_back(std::move(handlers));
  }

  void Start() {
    if (running_.exchange(true)) return;
    dispatcher_ = std::thread([this] { DispatchLoop(); });
    reflector_ = std::thread([this] { ReflectLoop(); });
  }

  // Stops both threads. Pending notifications are dropped.
  void Stop() {
    if (!running_.exchange(false)) return;
    {
      std::lock_guard lock(cancel_mutex_);
      if (cancel_) cancel_->cancel();
    }
    { std::lock_guard lock(sleep_mutex_); }  // a waiter between predicate check and wait sees the flag
    sleep_cv_.notify_all();
    { std::lock_guard lock(queue_mutex_); }
    queue_cv_.notify_all();
    if (reflector_.joinable()) reflector_.join();
    if (dispatcher_.joinable()) dispatcher_.join();
  }

  // True after the first complete list has been applied to the cache.
  bool HasSynced() const { return synced_.load(); }
  bool WaitForSync(std::chrono::milliseconds timeout) {
    std::unique_lock lock(store_mutex_);
    return synced_cv_.wait_for(lock, timeout, [this] { return synced_.load(); });
  }
  // Waits until every notification queued so far has been handled (tests, orderly shutdown).
  bool WaitIdle(std::chrono::milliseconds timeout) {
    std::unique_lock lock(queue_mutex_);
    return idle_cv_.wait_for(lock, timeout, [this] { return queue_.empty() && !dispatching_; });
  }

  Ptr Get(const std::string& key) const {
    std::lock_guard lock(store_mutex_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }
  std::vector<Ptr> List() const {
    std::lock_guard lock(store_mutex_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [key, item] : items_) out.push_back(item);
    return out;
  }
  std::vector<Ptr> ByIndex(const std::string& index, const std::string& value) const {
    std::lock_guard lock(store_mutex_);
    std::vector<Ptr> out;
    auto idx = indexes_.find(index);
    if (idx == indexes_.end()) throw std::invalid_argument("no index named '" + index + "'");
    auto bucket = idx->second.find(value);
    if (bucket == idx->second.end()) return out;
    out.assign(bucket->second.begin(), bucket->second.end());
    return out;
  }
  size_t size() const {
    std::lock_guard lock(store_mutex_);
    return items_.size();
  }
  std::string LastResourceVersion() const {
    std::lock_guard lock(store_mutex_);
    return last_rv_;
  }
  InformerStats stats() const {
    std::lock_guard lock(store_mutex_);
    return stats_;
  }

 private:
  enum class Kind { kAdd, kUpdate, kDelete };
  struct Notification {
    Kind kind;
    Ptr old_object;
    Ptr new_object;
    bool final_state_unknown = false;
  };

  // ---- reflector thread ----
  void ReflectLoop() {
    bool need_list = true;
    bool first_list = true;
    int failures_in_a_row = 0;
    while (running_) {
      if (need_list) {
        try {
          Relist(first_list);
          first_list = false;
          need_list = false;
        } catch (...) {
          if (!running_) return;
          Report("list", std::current_exception());
          SleepFor(FailureDelay(std::current_exception()));
          continue;
        }
      }
      WatchOutcome outcome = WatchOnce();
      if (!running_) return;
      switch (outcome.action) {
        case Action::kRewatch:
          failures_in_a_row = 0;
          break;
        case Action::kRelist:
          failures_in_a_row = 0;
          need_list = true;
          break;
        case Action::kBackoff:
          SleepFor(outcome.delay);
          if (++failures_in_a_row >= options_.watch_failures_before_relist) {
            failures_in_a_row = 0;
            need_list = true;
          }
          break;
      }
    }
  }

  void Relist(bool first) {
    ListOptions opts;
    opts.label_selector = options_.label_selector;
    opts.field_selector = options_.field_selector;
    opts.limit = options_.page_size;
    if (first) opts.resource_version = "0";
    // Items go straight into their final shared allocation: no list-sized vector of objects.
    ObjectDecoder<T> decoder;
    std::vector<Ptr> items;
    std::string list_rv = ListPages(
        *client_, resource_, options_.namespace_, opts,
        [&](std::string_view body) {
          return decoder.DecodeListEach(body, [&](T&& item) { items.push_back(std::make_shared<const T>(std::move(item))); });
        },
        [&] { items.clear(); });
    Replace(std::move(items), list_rv);
  }

  // Installs a fresh list: adds, updates for changed RVs, and tombstoned deletes for vanished keys.
  // Builds the next map directly (no side set of seen keys), so the cache is laid out without holes.
  void Replace(std::vector<Ptr> items, const std::string& list_rv) {
    std::vector<Notification> out;
    {
      std::lock_guard lock(store_mutex_);
      ItemMap next;
      next.reserve(items.size());
      for (auto& fresh : items) {
        std::string key = fresh->meta.key();
        auto existing = items_.find(key);
        if (existing == items_.end()) {
          IndexLocked(fresh, true);
          out.push_back({Kind::kAdd, nullptr, fresh});
          next.emplace(std::move(key), std::move(fresh));
        } else if (existing->second->meta.resource_version == fresh->meta.resource_version) {
          next.emplace(std::move(key), existing->second);
        } else {
          IndexLocked(existing->second, false);
          IndexLocked(fresh, true);
          out.push_back({Kind::kUpdate, existing->second, fresh});
          next.emplace(std::move(key), std::move(fresh));
        }
      }
      items.clear();
      items.shrink_to_fit();
      for (const auto& [key, last] : items_) {
        if (next.count(key)) continue;
        IndexLocked(last, false);
        out.push_back({Kind::kDelete, last, nullptr, true});
      }
      items_.swap(next);
      last_rv_ = list_rv;
      ++stats_.lists;
      stats_.consecutive_failures = 0;
      synced_ = true;
    }
    synced_cv_.notify_all();
    Enqueue(std::move(out));
  }

  enum class Action { kRewatch, kRelist, kBackoff };
  struct WatchOutcome {
    Action action;
    std::chrono::milliseconds delay{0};
  };

  WatchOutcome WatchOnce() {
    ListOptions opts;
    opts.label_selector = options_.label_selector;
    opts.field_selector = options_.field_selector;
    opts.allow_watch_bookmarks = true;
    std::string start_rv = LastResourceVersion();
    opts.resource_version = start_rv;
    std::uniform_int_distribution<long> Spread(options_.min_watch_timeout.count(), 2 * options_.min_watch_timeout.count());
    opts.timeout_seconds = Spread(rng_);
    // Synthetic ADDED events of a watch from ""/"0" come in no RV order: don't resume from them.
    bool propagate_rv_from_added = !(start_rv.empty() || start_rv == "0");

    auto cancel = std::make_shared<net::CancelToken>();
    {
      std::lock_guard lock(cancel_mutex_);
      cancel_ = cancel;
    }
    if (!running_) return {Action::kRewatch};
    {
      std::lock_guard lock(store_mutex_);
      ++stats_.watches;
    }
    ObjectDecoder<T> decoder;
    long events = 0;
    std::exception_ptr stream_error;
    auto started = std::chrono::steady_clock::now();
    try {
      WatchLines(*client_, resource_, options_.namespace_, opts, options_.idle_timeout,
                  [&](std::string_view line) {
                    if (stream_error) return;  // after an ERROR event the stream is over for us
                    WatchEvent<T> event = decoder.DecodeEvent(line);
                    if (event.type == WatchEventType::kError) {
                      stream_error = event.error;
                      cancel->cancel();
                      return;
                    }
                    ++events;
                    Apply(std::move(event), propagate_rv_from_added);
                  },
                  *cancel, [this] { SetWatchOpen(true); });
    } catch (...) {
      if (!stream_error) stream_error = std::current_exception();
    }
    SetWatchOpen(false);
    {
      std::lock_guard lock(cancel_mutex_);
      cancel_.reset();
    }
    if (!running_) return {Action::kRewatch};
    if (!stream_error) {
      if (events == 0 && std::chrono::steady_clock::now() - started < options_.short_watch) {
        return {Action::kBackoff, NextBackoff()};
      }
      backoff_.Reset();
      std::lock_guard lock(store_mutex_);
      stats_.consecutive_failures = 0;
      return {Action::kRewatch};
    }
    {
      std::lock_guard lock(store_mutex_);
      ++stats_.watch_errors;
    }
    Report("watch", stream_error);
    if (IsRelistError(stream_error)) {
      std::lock_guard lock(store_mutex_);
      ++stats_.relists_after_expired;
      return {Action::kRelist};
    }
    try {
      std::rethrow_exception(stream_error);
    } catch (const DecodeError&) {
      return {Action::kRelist};  // a garbled stream: we cannot know what we missed
    } catch (...) {
    }
    return {Action::kBackoff, FailureDelay(stream_error)};
  }

  // Once a non-ADDED event arrives the synthetic ones are over: from then on every event moves the
  // resume point, so the flag is the caller's and stays set for the rest of the watch.
  void Apply(WatchEvent<T> event, bool& propagate_rv_from_added) {
    std::vector<Notification> out;
    {
      std::lock_guard lock(store_mutex_);
      stats_.consecutive_failures = 0;
      if (event.type == WatchEventType::kBookmark) {
        ++stats_.bookmarks;
        if (!event.resource_version.empty()) last_rv_ = event.resource_version;
        return;
      }
      ++stats_.events;
      if (event.type != WatchEventType::kAdded) propagate_rv_from_added = true;
      std::string key = event.object.meta.key();
      auto existing = items_.find(key);
      if (event.type == WatchEventType::kDeleted) {
        if (existing != items_.end()) {
          Ptr last = std::make_shared<const T>(std::move(event.object));
          EraseLocked(existing);
          out.push_back({Kind::kDelete, last, nullptr, false});
        }
      } else if (existing == items_.end()) {
        Ptr fresh = std::make_shared<const T>(std::move(event.object));
        InsertLocked(std::move(key), fresh);
        out.push_back({Kind::kAdd, nullptr, fresh});
      } else if (existing->second->meta.resource_version != event.resource_version) {
        Ptr old = existing->second;
        Ptr fresh = std::make_shared<const T>(std::move(event.object));
        UpdateLocked(existing, fresh);
        out.push_back({Kind::kUpdate, old, fresh});
      }
      if (propagate_rv_from_added && !event.resource_version.empty()) last_rv_ = event.resource_version;
    }
    Enqueue(std::move(out));
  }

  void SetWatchOpen(bool open) {
    std::lock_guard lock(store_mutex_);
    stats_.watch_open = open;
  }

  void Report(const char* phase, const std::exception_ptr& error) {
    {
      std::lock_guard lock(store_mutex_);
      ++stats_.consecutive_failures;
    }
    if (!options_.on_error) return;
    std::string what = std::string(phase) + " " + resource_.plural + ": ";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what += e.what();
    } catch (...) {
      what += "unknown error";
    }
    try {
      options_.on_error(what);
    } catch (...) {
    }
  }

  std::chrono::milliseconds NextBackoff() {
    std::lock_guard lock(backoff_mutex_);
    return backoff_.next();
  }

  std::chrono::milliseconds FailureDelay(const std::exception_ptr& error) {
    try {
      std::rethrow_exception(error);
    } catch (const TooManyRequestsError& e) {
      if (e.retry_after()) return std::chrono::duration_cast<std::chrono::milliseconds>(*e.retry_after());
    } catch (...) {
    }
    return NextBackoff();
  }

  void SleepFor(std::chrono::milliseconds d) {
    std::unique_lock lock(sleep_mutex_);
    sleep_cv_.wait_for(lock, d, [this] { return !running_; });
  }

  // ---- store (store_mutex_ held) ----
  using ItemMap = std::unordered_map<std::string, Ptr>;
  void InsertLocked(std::string key, const Ptr& item) {
    items_.emplace(std::move(key), item);
    IndexLocked(item, true);
  }
  void UpdateLocked(typename ItemMap::iterator it, const Ptr& fresh) {
    IndexLocked(it->second, false);
    it->second = fresh;
    IndexLocked(fresh, true);
  }
  void EraseLocked(typename ItemMap::iterator it) {
    IndexLocked(it->second, false);
    items_.erase(it);
  }
  // Index buckets hold the shared pointers themselves (16 bytes), not copies of the keys.
  void IndexLocked(const Ptr& item, bool add) {
    for (auto& [name, func] : index_funcs_) {
      auto& index = indexes_[name];
      for (const auto& value : func(*item)) {
        if (add) {
          index[value].insert(item);
        } else if (auto bucket = index.find(value); bucket != index.end()) {
          bucket->second.erase(item);
          if (bucket->second.empty()) index.erase(bucket);
        }
      }
    }
  }

  // ---- dispatcher thread ----
  void Enqueue(std::vector<Notification> notes) {
    if (notes.empty()) return;
    {
      std::lock_guard lock(queue_mutex_);
      for (auto& n : notes) queue_.push_back(std::move(n));
    }
    queue_cv_.notify_one();
  }

  void DispatchLoop() {
    std::unique_lock lock(queue_mutex_);
    while (running_) {
      queue_cv_.wait(lock, [this] { return !queue_.empty() || !running_; });
      while (running_ && !queue_.empty()) {
        Notification note = std::move(queue_.front());
        queue_.pop_front();
        dispatching_ = true;
        auto handlers = handlers_;
        lock.unlock();
        Deliver(note, handlers);
        lock.lock();
        dispatching_ = false;
      }
      if (queue_.empty()) idle_cv_.notify_all();
    }
  }

  static void Deliver(const Notification& note, const std::vector<Handlers>& handlers) {
    for (const auto& h : handlers) {
      // A throwing handler must not kill the dispatcher (no exception escapes a thread).
      try {
        switch (note.kind) {
          case Kind::kAdd:
            if (h.on_add) h.on_add(note.new_object);
            break;
          case Kind::kUpdate:
            if (h.on_update) h.on_update(note.old_object, note.new_object);
            break;
          case Kind::kDelete:
            if (h.on_delete) h.on_delete(note.old_object, note.final_state_unknown);
            break;
        }
      } catch (...) {
      }
    }
  }

  std::shared_ptr<RestClient> client_;
  ResourceDescriptor resource_;
  InformerOptions options_;

  std::atomic<bool> running_{false};
  std::atomic<bool> synced_{false};
  std::thread reflector_;
  std::thread dispatcher_;

  mutable std::mutex store_mutex_;
  std::condition_variable synced_cv_;
  ItemMap items_;
  std::unordered_map<std::string, IndexFunc> index_funcs_;
  std::unordered_map<std::string, std::unordered_map<std::string, std::unordered_set<Ptr>>> indexes_;
  std::string last_rv_;
  InformerStats stats_;

  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::condition_variable idle_cv_;
  std::deque<Notification> queue_;
  std::vector<Handlers> handlers_;
  bool dispatching_ = false;

  std::mutex cancel_mutex_;
  std::shared_ptr<net::CancelToken> cancel_;

  std::mutex sleep_mutex_;
  std::condition_variable sleep_cv_;

  std::mutex backoff_mutex_;
  Backoff backoff_;
  std::mt19937_64 rng_;
};

// Common index functions.
namespace indexes {
template <class T>
std::vector<std::string> ByLabel(const T& object, const std::string& label) {
  if (auto v = object.meta.labels.find(label)) return {std::string(*v)};
  return {};
}
inline std::vector<std::string> PodNodeName(const Pod& pod) {
  if (pod.node_name.empty()) return {};
  return {pod.node_name};
}
}  // namespace indexes

}  // namespace gangplank::kube
