#include "kube/list_watch.h"

namespace gangplank::kube {

std::string_view to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded: return "ADDED";
    case WatchEventType::kModified: return "MODIFIED";
    case WatchEventType::kDeleted: return "DELETED";
    case WatchEventType::kBookmark: return "BOOKMARK";
    case WatchEventType::kError: return "ERROR";
  }
  return "UNKNOWN";
}

simdjson::padded_string_view PaddedBuffer::view(std::string_view text) {
  storage_.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  storage_.assign(text);
  return simdjson::padded_string_view(storage_.data(), storage_.size(), storage_.capacity());
}

std::string ListPages(RestClient& client, const ResourceDescriptor& resource, const std::string& ns,
                       ListOptions options, const std::function<ListMetaInfo(std::string_view body)>& on_page,
                       const std::function<void()>& on_restart) {
  options.watch = false;
  options.continue_token.clear();
  const std::string path = resource.CollectionPath(ns);
  bool restarted = false;
  for (;;) {
    RestRequest request;
    request.path = path;
    request.query = options.ToQuery();
    net::HttpClientResponse response;
    try {
      response = client.Execute(request);
    } catch (const ExpiredError&) {
      // The continue token expired (or the snapshot was compacted): start over once from scratch.
      if (options.continue_token.empty() || restarted) throw;
      restarted = true;
      options.continue_token.clear();
      if (on_restart) on_restart();
      continue;
    }
    ListMetaInfo meta = on_page(response.body);
    if (meta.continue_token.empty()) return meta.resource_version;
    options.continue_token = meta.continue_token;
  }
}

void WatchLines(RestClient& client, const ResourceDescriptor& resource, const std::string& ns,
                 const ListOptions& options, std::chrono::milliseconds idle_timeout,
                 const std::function<void(std::string_view)>& on_line, net::CancelToken& cancel,
                 const std::function<void()>& on_open) {
  ListOptions watch_options = options;
  watch_options.watch = true;
  watch_options.limit.reset();
  watch_options.continue_token.clear();
  RestRequest request;
  request.path = resource.CollectionPath(ns);
  request.query = watch_options.ToQuery();
  LineFramer framer;
  client.stream(
      request, idle_timeout,
      [&](std::string_view bytes) {
        if (!bytes.empty()) {
          framer.feed(bytes, on_line);
        } else if (on_open) {
          on_open();
        }
      },
      cancel);
}

}  // namespace gangplank::kube
