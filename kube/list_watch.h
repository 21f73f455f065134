// LIST with limit/continue and WATCH with line framing, decoded into typed objects via Codec<T>.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "kube/api_error.h"
#include "kube/line_framer.h"
#include "kube/objects.h"
#include "kube/resource.h"
#include "kube/rest_client.h"

namespace gangplank::kube {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };
std::string_view to_string(WatchEventType type);

template <class T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  T object{};                       // ADDED/MODIFIED: new state; DELETED: last state; BOOKMARK: only RV
  std::string resource_version;     // object's metadata.resourceVersion
  std::exception_ptr error;         // ERROR: the decoded Status as a typed ApiError
};

// Holds a padded copy of the input, which simdjson On-Demand needs.
class PaddedBuffer {
 public:
  simdjson::padded_string_view view(std::string_view text);

 private:
  std::string storage_;
};

struct ListMetaInfo {
  std::string resource_version;
  std::string continue_token;
};

template <class T>
struct ListPage {
  std::string resource_version;
  std::string continue_token;
  std::vector<T> items;
};

// Decodes list pages and watch events of one type. Reuses its parser; not thread-safe.
template <class T>
class ObjectDecoder {
 public:
  // Throws DecodeError for malformed input.
  ListPage<T> DecodeList(std::string_view body) {
    ListPage<T> page;
    ListMetaInfo meta = DecodeListEach(body, [&](T&& item) { page.items.push_back(std::move(item)); });
    page.resource_version = std::move(meta.resource_version);
    page.continue_token = std::move(meta.continue_token);
    return page;
  }

  // Streams the items of one page to `sink` (no page-sized vector); returns the list metadata.
  template <class Sink>
  ListMetaInfo DecodeListEach(std::string_view body, Sink&& sink) {
    ListMetaInfo meta;
    try {
      auto doc = parser_.iterate(buffer_.view(body));
      for (auto field : doc.get_object()) {
        std::string_view key = field.unescaped_key();
        if (key == "metadata") {
          for (auto mf : field.value().get_object()) {
            std::string_view mkey = mf.unescaped_key();
            if (mkey == "resourceVersion") meta.resource_version = std::string_view(mf.value().get_string());
            else if (mkey == "continue") meta.continue_token = std::string_view(mf.value().get_string());
          }
        } else if (key == "items") {
          simdjson::ondemand::value items = field.value();
          if (items.is_null()) continue;
          for (auto item : items.get_array()) {
            T object{};
            Codec<T>::Decode(item.value(), object);
            sink(std::move(object));
          }
        }
      }
    } catch (const simdjson::simdjson_error& e) {
      throw DecodeError(std::string("bad list page: ") + e.what());
    }
    return meta;
  }

  // One object (a GET response).
  T DecodeObject(std::string_view body) {
    T object{};
    try {
      auto doc = parser_.iterate(buffer_.view(body));
      simdjson::ondemand::value root = doc.get_value();
      Codec<T>::Decode(root, object);
    } catch (const simdjson::simdjson_error& e) {
      throw DecodeError(std::string("bad object: ") + e.what());
    }
    return object;
  }

  // Fields may come in any order; the apiserver writes "type" first but not every server does. When
  // "object" precedes "type", its raw text is set aside and decoded once the type is known.
  WatchEvent<T> DecodeEvent(std::string_view line) {
    WatchEvent<T> event;
    try {
      std::optional<WatchEventType> type;
      std::string_view deferred_object;
      bool have_object = false;
      auto doc = parser_.iterate(buffer_.view(line));
      for (auto field : doc.get_object()) {
        std::string_view key = field.unescaped_key();
        if (key == "type") {
          type = ParseType(field.value().get_string());
        } else if (key == "object") {
          have_object = true;
          simdjson::ondemand::value object = field.value();
          if (type) {
            DecodePayload(*type, object, event);
          } else {
            deferred_object = simdjson::to_json_string(object);
          }
        }
      }
      if (!type) throw DecodeError("watch event without type");
      if (!have_object) throw DecodeError("watch event without object");
      event.type = *type;
      if (!deferred_object.empty()) {
        deferred_.assign(deferred_object);  // buffer_ is about to be reused by the second parse
        auto object_doc = parser_.iterate(buffer_.view(deferred_));
        simdjson::ondemand::value object = object_doc.get_value();
        DecodePayload(*type, object, event);
      }
    } catch (const simdjson::simdjson_error& e) {
      throw DecodeError(std::string("bad watch event: ") + e.what());
    }
    return event;
  }

 private:
  void DecodePayload(WatchEventType type, simdjson::ondemand::value object, WatchEvent<T>& event) {
    event.type = type;
    if (type == WatchEventType::kError) {
      std::string_view raw = simdjson::to_json_string(object);
      event.error = MakeApiErrorFromStatus(raw, 500, std::nullopt);
      return;
    }
    if (type == WatchEventType::kBookmark) {
      for (auto field : object.get_object()) {
        if (std::string_view(field.unescaped_key()) == "metadata") DecodeObjectMeta(field.value(), bookmark_meta_);
      }
      event.resource_version = bookmark_meta_.resource_version;
      bookmark_meta_ = {};
      return;
    }
    Codec<T>::Decode(object, event.object);
    event.resource_version = event.object.meta.resource_version;
  }

  static WatchEventType ParseType(std::string_view type) {
    if (type == "ADDED") return WatchEventType::kAdded;
    if (type == "MODIFIED") return WatchEventType::kModified;
    if (type == "DELETED") return WatchEventType::kDeleted;
    if (type == "BOOKMARK") return WatchEventType::kBookmark;
    if (type == "ERROR") return WatchEventType::kError;
    throw DecodeError("unknown watch event type '" + std::string(type) + "'");
  }

  simdjson::ondemand::parser parser_;
  PaddedBuffer buffer_;
  std::string deferred_;
  ObjectMeta bookmark_meta_;
};

// Fetches every page of a list: loops while metadata.continue is non-empty (never on item counts), with
// identical parameters on each page. A 410 on a continue token restarts the list from the beginning
// (on_restart lets the caller discard what it had). Returns the list's resourceVersion — the point to
// start a watch from. on_page decodes the raw body of each page and returns its list metadata.
std::string ListPages(RestClient& client, const ResourceDescriptor& resource, const std::string& ns,
                       ListOptions options, const std::function<ListMetaInfo(std::string_view body)>& on_page,
                       const std::function<void()>& on_restart = {});

template <class T>
struct ListResult {
  std::string resource_version;
  std::vector<T> items;
};

template <class T>
ListResult<T> ListAll(RestClient& client, const ResourceDescriptor& resource, const std::string& ns,
                       ListOptions options) {
  ObjectDecoder<T> decoder;
  ListResult<T> result;
  result.resource_version = ListPages(
      client, resource, ns, std::move(options),
      [&](std::string_view body) {
        ListPage<T> page = decoder.DecodeList(body);
        for (auto& item : page.items) result.items.push_back(std::move(item));
        return ListMetaInfo{page.resource_version, page.continue_token};
      },
      [&] { result.items.clear(); });
  return result;
}

// One watch request: calls on_open once the server has answered 200 (before any event: an idle watch
// sends nothing until a bookmark, a minute or so), then on_line for each framed event line until the
// server ends the stream. Throws ApiError for an HTTP error status, net::TransportError on idle timeout
// / failure / cancel.
void WatchLines(RestClient& client, const ResourceDescriptor& resource, const std::string& ns,
                 const ListOptions& options, std::chrono::milliseconds idle_timeout,
                 const std::function<void(std::string_view)>& on_line, net::CancelToken& cancel,
                 const std::function<void()>& on_open = nullptr);

}  // namespace gangplank::kube
