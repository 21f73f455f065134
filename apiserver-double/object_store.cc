#include "apiserver-double/object_store.h"

#include <algorithm>

#include "apiserver-double/api_error.h"

namespace gangplank::apiserver_double {
namespace {

std::string MetaString(const nlohmann::json& object, const char* field) {
  const auto& meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto it = meta->find(field);
  return it != meta->end() && it->is_string() ? it->get<std::string>() : std::string();
}

ApiError TooOld(uint64_t requested, uint64_t floor) {
  return expired("too old resource version: " + std::to_string(requested) + " (" + std::to_string(floor + 1) + ")");
}

}  // namespace

ObjectPtr ObjectStore::Txn::Get(const std::string& gr, const std::string& ns, const std::string& name) const {
  auto resource = store_.objects_.find(gr);
  if (resource == store_.objects_.end()) return nullptr;
  auto it = resource->second.find(ObjectKey(ns, name));
  return it == resource->second.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> ObjectStore::Txn::List(const std::string& gr, const std::string& ns) const {
  std::vector<ObjectPtr> out;
  auto resource = store_.objects_.find(gr);
  if (resource == store_.objects_.end()) return out;
  if (ns.empty()) {
    out.reserve(resource->second.size());
    for (const auto& [key, object] : resource->second) out.push_back(object);
    return out;
  }
  const std::string prefix = ns + "/";
  for (auto it = resource->second.lower_bound(prefix); it != resource->second.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    out.push_back(it->second);
  }
  return out;
}

ObjectPtr ObjectStore::Txn::put(const std::string& gr, nlohmann::json object) {
  const uint64_t rv = ++store_.rv_;
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  const std::string key = ObjectKey(MetaString(object, "namespace"), MetaString(object, "name"));
  ObjectPtr stored = std::make_shared<const StoredObject>(std::move(object));
  auto& slot = store_.objects_[gr][key];
  ObjectPtr previous = slot;
  slot = stored;
  store_.Emit({rv, gr, key, previous ? "MODIFIED" : "ADDED", stored, previous});
  return stored;
}

ObjectPtr ObjectStore::Txn::erase(const std::string& gr, const std::string& ns, const std::string& name) {
  auto resource = store_.objects_.find(gr);
  if (resource == store_.objects_.end()) return nullptr;
  const std::string key = ObjectKey(ns, name);
  auto it = resource->second.find(key);
  if (it == resource->second.end()) return nullptr;
  ObjectPtr previous = it->second;
  resource->second.erase(it);
  const uint64_t rv = ++store_.rv_;
  nlohmann::json final_state = *previous;
  final_state["metadata"]["resourceVersion"] = std::to_string(rv);
  ObjectPtr last = std::make_shared<const StoredObject>(std::move(final_state));
  store_.Emit({rv, gr, key, "DELETED", last, previous});
  return last;
}

void ObjectStore::Txn::EraseAll(const std::string& gr) {
  for (const auto& object : List(gr, "")) {
    erase(gr, MetaString(*object, "namespace"), MetaString(*object, "name"));
  }
}

void ObjectStore::Emit(StoreEvent event) {
  history_.push_back(event);
  while (history_.size() > history_limit_) {
    floor_ = history_.front().rv;
    history_.pop_front();
  }
  for (auto& [id, watcher] : watchers_) {
    if (watcher.gr == event.group_resource && !watcher.catching_up && watcher.callbacks.on_event) {
      watcher.callbacks.on_event(event);
    }
  }
}

uint64_t ObjectStore::CurrentRv() const {
  std::lock_guard lock(mutex_);
  return rv_;
}

uint64_t ObjectStore::CompactionFloor() const {
  std::lock_guard lock(mutex_);
  return floor_;
}

ObjectStore::ListPage ObjectStore::ListPageAt(const std::string& gr, const std::string& ns, std::optional<uint64_t> at_rv,
                                             const std::string& start_after, std::size_t limit,
                                             const std::function<bool(const nlohmann::json&)>& match) const {
  std::lock_guard lock(mutex_);
  ListPage page;
  page.rv = at_rv.value_or(rv_);
  if (at_rv && *at_rv < floor_) throw TooOld(*at_rv, floor_);
  if (at_rv && *at_rv > rv_) {
    throw ApiError(504, "Timeout", "Too large resource version: " + std::to_string(*at_rv) + ", current: " + std::to_string(rv_),
                   {{"causes", {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}}},
                    {"retryAfterSeconds", 1}});
  }
  static const std::map<std::string, ObjectPtr> kEmpty;
  auto live = objects_.find(gr);
  const std::map<std::string, ObjectPtr>* source = live == objects_.end() ? &kEmpty : &live->second;
  // Rebuild the old state only when this resource changed after the snapshot (pages of a quiet
  // resource are then served straight from the live map, in O(page)).
  std::map<std::string, ObjectPtr> rebuilt;
  bool changed = false;
  for (auto it = history_.rbegin(); it != history_.rend() && it->rv > page.rv; ++it) {
    if (it->group_resource == gr) {
      changed = true;
      break;
    }
  }
  if (changed) {
    rebuilt = *source;
    for (auto it = history_.rbegin(); it != history_.rend() && it->rv > page.rv; ++it) {
      if (it->group_resource != gr) continue;
      if (it->type == "ADDED") {
        rebuilt.erase(it->key);
      } else {
        rebuilt[it->key] = it->previous;
      }
    }
    source = &rebuilt;
  }
  const std::string prefix = ns.empty() ? std::string() : ns + "/";
  auto it = source->lower_bound(prefix);
  if (!start_after.empty() && start_after >= prefix) it = source->upper_bound(start_after);
  auto in_range = [&](decltype(it) i) { return i != source->end() && (prefix.empty() || i->first.rfind(prefix, 0) == 0); };
  std::string last_key;
  for (; in_range(it); ++it) {
    if (match && !match(*it->second)) continue;
    if (limit > 0 && page.items.size() == limit) {
      page.next_start = last_key;
      for (auto rest = it; in_range(rest); ++rest) ++page.remaining;
      break;
    }
    page.items.push_back(it->second);
    last_key = it->first;
  }
  return page;
}

uint64_t ObjectStore::AddWatcher(const std::string& gr, std::optional<uint64_t> from_rv, WatcherCallbacks callbacks,
                                  const std::function<void(uint64_t)>& initial_done) {
  std::lock_guard lock(mutex_);
  if (from_rv) {
    if (*from_rv < floor_) throw TooOld(*from_rv, floor_);
    for (const auto& event : history_) {
      if (event.rv > *from_rv && event.group_resource == gr) callbacks.on_event(event);
    }
  } else if (auto resource = objects_.find(gr); resource != objects_.end()) {
    for (const auto& [key, object] : resource->second) {
      callbacks.on_event({0, gr, key, "ADDED", object, nullptr});
    }
  }
  if (initial_done) initial_done(rv_);
  const uint64_t id = next_watcher_id_++;
  watchers_[id] = Watcher{gr, std::move(callbacks)};
  return id;
}

uint64_t ObjectStore::AddCatchingUpWatcher(const std::string& gr, uint64_t from_rv, WatcherCallbacks callbacks) {
  std::lock_guard lock(mutex_);
  if (from_rv < floor_) throw TooOld(from_rv, floor_);
  const uint64_t id = next_watcher_id_++;
  watchers_[id] = Watcher{gr, std::move(callbacks), true, from_rv};
  return id;
}

ObjectStore::CatchUp ObjectStore::CatchUpStep(uint64_t id, std::size_t max_events) {
  std::lock_guard lock(mutex_);
  auto found = watchers_.find(id);
  if (found == watchers_.end()) return CatchUp::kGone;
  Watcher& watcher = found->second;
  if (!watcher.catching_up) return CatchUp::kLive;
  if (watcher.cursor < floor_) {
    // The history limit trimmed events this watcher has not seen: it cannot continue.
    watcher.catching_up = false;
    if (watcher.callbacks.on_compacted) watcher.callbacks.on_compacted(floor_);
    return CatchUp::kExpired;
  }
  auto it = std::upper_bound(history_.begin(), history_.end(), watcher.cursor,
                             [](uint64_t rv, const StoreEvent& event) { return rv < event.rv; });
  std::size_t delivered = 0;
  for (; it != history_.end() && delivered < max_events; ++it) {
    watcher.cursor = it->rv;
    if (it->group_resource != watcher.gr) continue;
    if (watcher.callbacks.on_event) watcher.callbacks.on_event(*it);
    ++delivered;
  }
  if (it != history_.end()) return CatchUp::kMore;
  watcher.catching_up = false;  // under the lock: the next emit() reaches it, nothing is skipped
  return CatchUp::kLive;
}

void ObjectStore::RemoveWatcher(uint64_t id) {
  std::lock_guard lock(mutex_);
  watchers_.erase(id);
}

std::size_t ObjectStore::WatcherCount() const {
  std::lock_guard lock(mutex_);
  return watchers_.size();
}

void ObjectStore::Compact() {
  std::lock_guard lock(mutex_);
  history_.clear();
  floor_ = rv_;
  for (auto& [id, watcher] : watchers_) {
    if (watcher.callbacks.on_compacted) watcher.callbacks.on_compacted(floor_);
  }
}

void ObjectStore::clear() {
  std::lock_guard lock(mutex_);
  objects_.clear();
  history_.clear();
  // Objects vanished without DELETED events, so even the current version must count as too old.
  floor_ = ++rv_;
}

}  // namespace gangplank::apiserver_double
