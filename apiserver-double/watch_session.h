// One open watch: filters store events through its selectors (objects moving out of a field or label
// selector arrive as DELETED, moving in as ADDED, as the apiserver does), frames them as JSON lines on
// the chunked response, sends bookmarks, and ends at its deadline, on compaction or when dropped.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "apiserver-double/object_store.h"
#include "apiserver-double/resource_catalog.h"
#include "apiserver-double/selectors.h"
#include "apiserver-double/table_printer.h"
#include "net/http_server.h"

namespace gangplank::apiserver_double {

class WatchSession : public std::enable_shared_from_this<WatchSession> {
 public:
  struct Config {
    ResourceType type;
    std::string namespace_name;
    LabelSelector labels;
    FieldSelector fields;
    bool bookmarks = false;
    bool table = false;
    IncludeObject include_object = IncludeObject::kMetadata;  // of table rows
    uint64_t after_rv = 0;  // events at or below this are not sent (watch from a future RV waits)
  };

  WatchSession(Config config, std::shared_ptr<net::HttpResponseStream> stream)
      : config_(std::move(config)), stream_(std::move(stream)) {}

  // Store callback (runs under the store lock).
  void OnEvent(const StoreEvent& event);
  // Writes a BOOKMARK at `rv`; `initial_events_end` marks the end of sendInitialEvents.
  void bookmark(uint64_t rv, bool initial_events_end = false);
  // Sends an ERROR event carrying `status` and ends the stream.
  void Fail(const nlohmann::json& status);
  // Ends the stream cleanly.
  void end();
  bool ended() const { return stream_->closed(); }
  uint64_t watcher_id() const { return watcher_id_.load(); }
  void SetWatcherId(uint64_t id) { watcher_id_ = id; }
  // While a backlog replays, bookmarks would claim a resourceVersion the client has not reached yet.
  bool catching_up() const { return catching_up_.load(); }
  void SetCatchingUp(bool value) { catching_up_ = value; }
  net::HttpResponseStream& stream() { return *stream_; }

 private:
  void Send(const std::string& type, const nlohmann::json& object);
  bool selected(const nlohmann::json& object) const;

  Config config_;
  std::shared_ptr<net::HttpResponseStream> stream_;
  std::atomic<uint64_t> watcher_id_{0};
  std::atomic<bool> catching_up_{false};
};

}  // namespace gangplank::apiserver_double
