#include "apiserver-double/protobuf_body.h"

#include <cstdint>
#include <functional>
#include <string_view>

#include "apiserver-double/api_error.h"

namespace gangplank::apiserver_double {
namespace {

using nlohmann::json;

ApiError Malformed(const std::string& why) { return ApiError(400, "BadRequest", "the protobuf request body is malformed: " + why); }

// A protobuf message's fields in order: field number, wire type, and the varint or the bytes.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  // Calls `on_field(number, bytes)` for length-delimited fields and `on_field(number, {})` after reading
  // a varint (its value in last_varint()); fixed-width fields are skipped.
  void each(const std::function<void(int, std::string_view)>& on_field) {
    while (pos_ < data_.size()) {
      const std::uint64_t key = varint();
      const int number = static_cast<int>(key >> 3);
      switch (key & 7) {
        case 0: last_varint_ = varint(); on_field(number, {}); break;
        case 1: Skip(8); break;
        case 2: {
          const std::uint64_t length = varint();
          if (length > data_.size() - pos_) throw Malformed("a field runs past the end");
          on_field(number, data_.substr(pos_, length));
          pos_ += length;
          break;
        }
        case 5: Skip(4); break;
        default: throw Malformed("unsupported wire type " + std::to_string(key & 7));
      }
    }
  }
  std::uint64_t last_varint() const { return last_varint_; }

 private:
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) throw Malformed("a varint runs past the end");
      const auto byte = static_cast<unsigned char>(data_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    throw Malformed("a varint is too long");
  }
  void Skip(std::size_t n) {
    if (n > data_.size() - pos_) throw Malformed("a field runs past the end");
    pos_ += n;
  }

  std::string_view data_;
  std::size_t pos_ = 0;
  std::uint64_t last_varint_ = 0;
};

// map<string, string> entry: key 1, value 2.
void AddEntry(json& map, std::string_view entry) {
  std::string key, value;
  Reader(entry).each([&](int n, std::string_view b) {
    if (n == 1) key = b;
    if (n == 2) value = b;
  });
  map[key] = value;
}

// k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta: what a create carries (server-set fields ignored).
json DecodeObjectMeta(std::string_view bytes) {
  json meta = json::object();
  Reader(bytes).each([&](int n, std::string_view b) {
    if (b.empty()) return;
    if (n == 1) meta["name"] = b;
    if (n == 2) meta["generateName"] = b;
    if (n == 3) meta["namespace"] = b;
    if (n == 11) AddEntry(meta["labels"], b);
    if (n == 12) AddEntry(meta["annotations"], b);
    if (n == 14) meta["finalizers"].push_back(b);
  });
  return meta;
}

// k8s.io.api.core.v1.Namespace: metadata 1, spec 2 (finalizers 1); status is the server's.
json NamespaceObject(std::string_view raw) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object()}};
  Reader(raw).each([&](int n, std::string_view b) {
    if (n == 1) ns["metadata"] = DecodeObjectMeta(b);
    if (n == 2) {
      Reader(b).each([&](int f, std::string_view v) {
        if (f == 1) ns["spec"]["finalizers"].push_back(v);
      });
    }
  });
  return ns;
}

}  // namespace

json DecodeProtobufObject(const std::string& body) {
  static constexpr std::string_view magic("k8s\0", 4);
  if (std::string_view(body).substr(0, 4) != magic) throw Malformed("no k8s envelope");
  std::string api_version, kind;
  std::string_view raw;
  // runtime.Unknown: typeMeta 1 (apiVersion 1, kind 2), raw 2, contentEncoding 3, contentType 4.
  Reader(std::string_view(body).substr(4)).each([&](int n, std::string_view b) {
    if (n == 1) {
      Reader(b).each([&](int f, std::string_view v) {
        if (f == 1) api_version = v;
        if (f == 2) kind = v;
      });
    }
    if (n == 2) raw = b;
  });
  if (api_version == "v1" && kind == "Namespace") return NamespaceObject(raw);
  throw ApiError(415, "UnsupportedMediaType",
                 "the API-server double decodes application/vnd.kubernetes.protobuf only for v1 Namespace, not " +
                     api_version + " " + kind + "; send application/json");
}

}  // namespace gangplank::apiserver_double
