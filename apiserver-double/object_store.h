// The double's storage: every object of every resource under one mutex and one resourceVersion
// counter, plus the event history that watches resume from and snapshot lists are rebuilt from.
// History older than the compaction floor is gone: starting a watch or a snapshot list there is 410.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gangplank::apiserver_double {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

// What the store keeps: the object plus its compact JSON text, serialized once at write time so lists
// and every watcher reuse it instead of re-serializing per request.
struct StoredObject : nlohmann::json {
  explicit StoredObject(nlohmann::json object) : nlohmann::json(std::move(object)), text(dump()) {}
  std::string text;
};

// The serialized form of an object that came from the store (all ObjectPtrs the store hands out do).
inline const std::string& StoredText(const ObjectPtr& object) { return static_cast<const StoredObject&>(*object).text; }

struct StoreEvent {
  uint64_t rv = 0;
  std::string group_resource;
  std::string key;     // "namespace/name" or "/name"
  std::string type;    // ADDED, MODIFIED, DELETED
  ObjectPtr object;    // new state; for DELETED the last state carrying the deletion's resourceVersion
  ObjectPtr previous;  // state before, null for ADDED
};

// A registered watcher gets every committed event of its resource, in resourceVersion order, while the
// store lock is held: the callback must only queue bytes, never block.
struct WatcherCallbacks {
  std::function<void(const StoreEvent&)> on_event;
  std::function<void(uint64_t floor)> on_compacted;  // history up to `floor` was dropped (compact())
};

class ObjectStore {
 public:
  explicit ObjectStore(std::size_t history_limit) : history_limit_(history_limit) {}

  static std::string ObjectKey(const std::string& namespace_name, const std::string& name) {
    return namespace_name + "/" + name;
  }

  // Access to the state inside one critical section.
  class Txn {
   public:
    explicit Txn(ObjectStore& store) : store_(store) {}
    ObjectPtr Get(const std::string& gr, const std::string& ns, const std::string& name) const;
    // Sorted by namespace then name; empty ns = all namespaces.
    std::vector<ObjectPtr> List(const std::string& gr, const std::string& ns) const;
    // Stores the object (metadata.namespace/name taken from it), assigns the next resourceVersion and
    // emits ADDED or MODIFIED. Returns what was stored.
    ObjectPtr put(const std::string& gr, nlohmann::json object);
    // Removes and emits DELETED. Returns the final state, or null if absent.
    ObjectPtr erase(const std::string& gr, const std::string& ns, const std::string& name);
    // Removes every object of a resource (CRD deletion), emitting DELETED for each.
    void EraseAll(const std::string& gr);
    uint64_t CurrentRv() const { return store_.rv_; }

   private:
    ObjectStore& store_;
  };

  template <class F>
  auto Transact(F&& f) {
    std::lock_guard lock(mutex_);
    Txn txn(*this);
    return f(txn);
  }

  uint64_t CurrentRv() const;
  struct ListPage {
    std::vector<ObjectPtr> items;
    uint64_t rv = 0;          // the snapshot the page was read from
    std::string next_start;   // key of the last item when more matching items follow, else empty
    long remaining = 0;       // objects (matching or not) after the page, when next_start is set
  };
  // One page of `gr` (in `ns`, or all namespaces) in key order, after key `start_after`, at most `limit`
  // items (0 = all) that satisfy `match` (null = all). at_rv == nullopt reads the current state;
  // otherwise the state at that resourceVersion, rebuilt from history only if `gr` changed since.
  // Throws ApiError 410 when at_rv is older than the compaction floor, 504 when it is in the future.
  ListPage ListPageAt(const std::string& gr, const std::string& ns, std::optional<uint64_t> at_rv,
                     const std::string& start_after, std::size_t limit,
                     const std::function<bool(const nlohmann::json&)>& match) const;

  // Registers a watcher. from_rv == nullopt: deliver the current state as synthetic ADDED events first;
  // otherwise replay history after from_rv (410 ApiError when compacted). Returns an id for remove.
  // `initial_done` (optional) runs after the synthetic/replayed events with the RV the watch is at.
  uint64_t AddWatcher(const std::string& gr, std::optional<uint64_t> from_rv, WatcherCallbacks callbacks,
                       const std::function<void(uint64_t)>& initial_done = nullptr);
  // Registers a watcher from `from_rv` that replays nothing yet: the caller pulls the backlog with
  // catch_up() at the pace its client reads, and live events start once the backlog is exhausted, so
  // a backlog of any length is delivered without queueing all of it at once. 410 ApiError when
  // from_rv is already compacted.
  uint64_t AddCatchingUpWatcher(const std::string& gr, uint64_t from_rv, WatcherCallbacks callbacks);
  enum class CatchUp { kMore, kLive, kExpired, kGone };
  // Delivers up to `max_events` backlog events to watcher `id`. kLive: the backlog is done and the
  // watcher now gets live events; kExpired: history it still needed was trimmed (on_compacted was
  // called); kGone: no such watcher.
  CatchUp CatchUpStep(uint64_t id, std::size_t max_events);
  void RemoveWatcher(uint64_t id);
  std::size_t WatcherCount() const;

  // Drops all history (and tells watchers), so every older resourceVersion is now too old.
  void Compact();
  // Drops every object and all history; the counter keeps increasing.
  void clear();
  uint64_t CompactionFloor() const;

 private:
  void Emit(StoreEvent event);

  mutable std::mutex mutex_;
  std::size_t history_limit_;
  uint64_t rv_ = 1;
  uint64_t floor_ = 0;  // history holds every event with rv > floor_
  std::map<std::string, std::map<std::string, ObjectPtr>> objects_;  // gr -> key -> object
  std::deque<StoreEvent> history_;
  struct Watcher {
    std::string gr;
    WatcherCallbacks callbacks;
    bool catching_up = false;  // gets no live events until catch_up() reaches the end of history
    uint64_t cursor = 0;       // while catching up: the last resourceVersion delivered
  };
  std::map<uint64_t, Watcher> watchers_;
  uint64_t next_watcher_id_ = 1;
};

}  // namespace gangplank::apiserver_double
