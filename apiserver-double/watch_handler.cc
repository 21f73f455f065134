// Watch requests: start semantics (RV unset/"0" = synthetic ADDED of current state, RV=X = changes
// after X, 410 when X was compacted), sendInitialEvents, bookmarks, timeoutSeconds.
#include <random>

#include "apiserver-double/double_impl.h"
#include "apiserver-double/table_printer.h"
#include "apiserver-double/watch_session.h"

namespace gangplank::apiserver_double {

using nlohmann::json;

bool WatchSession::selected(const json& object) const {
  if (!config_.namespace_name.empty() &&
      object.value("/metadata/namespace"_json_pointer, std::string()) != config_.namespace_name) {
    return false;
  }
  const json labels = object.contains("/metadata/labels"_json_pointer) ? object["/metadata/labels"_json_pointer] : json::object();
  return config_.labels.matches(labels) && config_.fields.matches(object);
}

void WatchSession::OnEvent(const StoreEvent& event) {
  if (event.rv != 0 && event.rv <= config_.after_rv) return;
  const bool now_selected = selected(*event.object);
  const bool was_selected = event.previous && selected(*event.previous);
  std::string type = event.type;
  if (event.type == "MODIFIED") {
    if (now_selected && !was_selected) type = "ADDED";
    if (!now_selected && was_selected) type = "DELETED";
    if (!now_selected && !was_selected) return;
  } else if (event.type == "DELETED") {
    if (!was_selected) return;
  } else if (!now_selected) {
    return;
  }
  // An object leaving the selection is sent in its new state as DELETED, as the apiserver does.
  if (!config_.table && !config_.type.custom) {
    stream_->Write("{\"type\":\"" + type + "\",\"object\":" + StoredText(event.object) + "}\n");
    return;
  }
  json object = config_.type.custom ? ApiServerDouble::Impl::ReadView(config_.type, *event.object) : *event.object;
  if (config_.type.custom) object["apiVersion"] = config_.type.ApiVersion();
  Send(type, object);
}

void WatchSession::Send(const std::string& type, const json& object) {
  json payload = object;
  if (config_.table && type != "BOOKMARK" && type != "ERROR") {
    payload = MakeTable(config_.type, {object}, json::object(), config_.include_object);
  }
  std::string line = json{{"type", type}, {"object", payload}}.dump();
  line.push_back('\n');
  stream_->Write(line);
}

void WatchSession::bookmark(uint64_t rv, bool initial_events_end) {
  json object = {{"kind", config_.type.kind},
                 {"apiVersion", config_.type.ApiVersion()},
                 {"metadata", {{"resourceVersion", std::to_string(rv)}}}};
  if (initial_events_end) object["metadata"]["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  Send("BOOKMARK", object);
}

void WatchSession::Fail(const json& status) {
  Send("ERROR", status);
  stream_->Close();
}

void WatchSession::end() { stream_->Close(); }

namespace {

bool truthy(const std::optional<std::string>& v) { return v && (*v == "1" || *v == "true" || v->empty()); }

}  // namespace

namespace {

// Backlog replay pacing: a slice of events is written only while less than this is still unread, so
// the stream buffer stays far below its slow-reader cap whatever the backlog's length.
constexpr std::size_t kCatchUpSliceEvents = 256;
constexpr std::size_t kCatchUpUnreadBytes = 1u << 20;
constexpr auto kCatchUpPoll = std::chrono::milliseconds(1);

}  // namespace

void ApiServerDouble::Impl::PumpCatchUp(const std::weak_ptr<WatchSession>& weak) {
  auto s = weak.lock();
  if (!s || s->ended()) return;
  if (s->stream().BufferedBytes() > kCatchUpUnreadBytes) {
    timers_->PostAfter(kCatchUpPoll, [this, weak] { PumpCatchUp(weak); });
    return;
  }
  switch (store_.CatchUpStep(s->watcher_id(), kCatchUpSliceEvents)) {
    case ObjectStore::CatchUp::kMore:
      timers_->Post([this, weak] { PumpCatchUp(weak); });
      return;
    case ObjectStore::CatchUp::kLive:
      s->SetCatchingUp(false);
      return;
    case ObjectStore::CatchUp::kExpired:
    case ObjectStore::CatchUp::kGone:
      return;
  }
}

void ApiServerDouble::Impl::StartWatch(const net::HttpRequest& req, const Target& t, net::HttpResponder& responder) {
  WatchSession::Config config;
  config.type = t.type;
  config.namespace_name = t.namespace_name;
  config.labels = LabelSelector::Parse(req.QueryParam("labelSelector").value_or(""));
  config.fields = FieldSelector::Parse(req.QueryParam("fieldSelector").value_or(""), t.type.kind);
  if (!t.name.empty()) {
    config.fields = FieldSelector::Parse("metadata.name=" + t.name + "," + req.QueryParam("fieldSelector").value_or(""), t.type.kind);
  }
  config.bookmarks = truthy(req.QueryParam("allowWatchBookmarks"));
  config.table = WantsTable(req);
  config.include_object = IncludeObjectParam(req.QueryParam("includeObject"));
  const std::string rv_text = req.QueryParam("resourceVersion").value_or("");
  const bool send_initial = truthy(req.QueryParam("sendInitialEvents"));
  if (send_initial && req.QueryParam("resourceVersionMatch").value_or("") != "NotOlderThan") {
    throw ApiError(422, "Invalid", "sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan");
  }
  std::optional<uint64_t> from_rv;
  if (!send_initial && !rv_text.empty() && rv_text != "0") from_rv = ParseRv(rv_text);
  if (from_rv) config.after_rv = *from_rv;
  long timeout_seconds = static_cast<long>(options_.default_watch_timeout.count());
  if (auto t_param = req.QueryParam("timeoutSeconds"); t_param && !t_param->empty()) {
    long requested = 0;
    try {
      requested = std::stol(*t_param);
    } catch (const std::exception&) {
      throw BadRequest("invalid timeoutSeconds \"" + *t_param + "\"");
    }
    if (requested > 0) timeout_seconds = requested;  // 0 means "server default", as in the apiserver
  }
  const ApiError too_old_error = expired("too old resource version: " + (from_rv ? std::to_string(*from_rv) : std::string()) +
                                         " (" + std::to_string(store_.CompactionFloor() + 1) + ")");
  const bool too_old = from_rv && *from_rv < store_.CompactionFloor();
  if (too_old && !options_.expired_watch_as_event) throw too_old_error;

  auto stream = responder.StartStream(200, {{"Content-Type", "application/json"}, {"Cache-Control", "no-cache, private"}});
  auto session = std::make_shared<WatchSession>(std::move(config), stream);
  if (too_old) {
    session->Fail(too_old_error.status());
    return;
  }
  std::weak_ptr<WatchSession> weak = session;
  // Runs under locks of whoever closed the stream (possibly the store), and possibly on an HTTP thread
  // after this double was destroyed: unregister asynchronously, and only while the double lives.
  std::weak_ptr<Liveness> liveness = liveness_;
  stream->OnClosed([this, weak, liveness] {
    auto alive = liveness.lock();
    if (!alive) return;
    std::lock_guard lock(alive->mutex);
    if (!alive->alive) return;
    timers_->Post([this, weak] {
      if (auto s = weak.lock()) {
        store_.RemoveWatcher(s->watcher_id());
        ForgetSession(s);
      }
    });
  });
  WatcherCallbacks callbacks;
  callbacks.on_event = [weak](const StoreEvent& event) {
    if (auto s = weak.lock()) s->OnEvent(event);
  };
  callbacks.on_compacted = [weak](uint64_t floor) {
    // Runs under the store lock: must not call back into the store.
    if (auto s = weak.lock()) s->Fail(expired("too old resource version: history compacted at " + std::to_string(floor)).status());
  };
  const bool bookmarks = session->ended() ? false : truthy(req.QueryParam("allowWatchBookmarks"));
  try {
    if (from_rv) {
      // The backlog after from_rv is pulled at the client's pace (pump_catch_up), however long it is.
      session->SetCatchingUp(true);
      session->SetWatcherId(store_.AddCatchingUpWatcher(t.type.GroupResource(), *from_rv, callbacks));
    } else {
      const uint64_t id = store_.AddWatcher(t.type.GroupResource(), from_rv, callbacks, [&](uint64_t rv) {
        if (send_initial && bookmarks) session->bookmark(rv, true);
      });
      session->SetWatcherId(id);
    }
  } catch (const ApiError& e) {
    session->Fail(e.status());
    return;
  }
  // Counted as open only once it receives events, so open_watches() == n means n live watchers.
  RegisterSession(session);
  if (session->ended()) {
    store_.RemoveWatcher(session->watcher_id());
    ForgetSession(session);
    return;
  }
  if (session->catching_up()) PumpCatchUp(weak);
  // Bookmarks: periodically, and once just before the deadline (as the watch cache does).
  const auto deadline = TimerQueue::Clock::now() + std::chrono::seconds(std::max(0L, timeout_seconds));
  auto write_bookmark = [this, weak] {
    if (auto s = weak.lock()) {
      // Under the store lock so no event with a higher RV can slip in before the bookmark.
      store_.Transact([&](ObjectStore::Txn& txn) {
        if (!s->ended() && !s->catching_up()) s->bookmark(txn.CurrentRv());
        return 0;
      });
    }
  };
  if (bookmarks) {
    auto periodic = std::make_shared<std::function<void()>>();
    *periodic = [this, weak, write_bookmark, periodic_weak = std::weak_ptr<std::function<void()>>(periodic), deadline] {
      auto s = weak.lock();
      if (!s || s->ended()) return;
      write_bookmark();
      if (TimerQueue::Clock::now() + options_.bookmark_interval < deadline) {
        if (auto next = periodic_weak.lock()) timers_->PostAfter(options_.bookmark_interval, [next] { (*next)(); });
      }
    };
    // The function keeps itself alive through the queued task only.
    timers_->PostAfter(options_.bookmark_interval, [periodic] { (*periodic)(); });
  }
  timers_->PostAt(deadline, [weak, bookmarks, write_bookmark] {
    if (auto s = weak.lock()) {
      if (bookmarks) write_bookmark();
      s->end();
    }
  });
}

}  // namespace gangplank::apiserver_double
