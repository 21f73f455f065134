#include "cache/dra/dra_objects.h"

#include <nlohmann/json.hpp>

#include "cache/crd/json_fields.h"
#include "cache/objects/decode_error.h"
#include "cache/objects/quantity.h"

namespace gangplank::cache::dra {
namespace {

using nlohmann::json;
namespace jf = json_fields;

std::string Index(const std::string& at, size_t i) { return at + "[" + std::to_string(i) + "]"; }

// The array member `key`, or an empty one; DecodeError when present and not an array.
const json& ArrayOf(const json* object, const std::string& at, const char* key) {
  static const json kEmpty = json::array();
  const json* v = jf::Member(object, at, key);
  if (v == nullptr) return kEmpty;
  if (!v->is_array()) throw DecodeError(jf::Path(at, key), "expected a list");
  return *v;
}

std::string Qualified(const std::string& driver, const std::string& name) {
  return name.find('/') == std::string::npos ? driver + "/" + name : name;
}

AttributeValue AttributeOf(const json& v, const std::string& at) {
  if (!v.is_object()) throw DecodeError(at, "expected an object with one of bool, int, string, version");
  AttributeValue a;
  if (auto b = jf::Bool(&v, at, "bool")) {
    a.kind = AttributeValue::Kind::kBool;
    a.bool_value = *b;
  } else if (const json* i = jf::Member(&v, at, "int")) {
    if (!i->is_number_integer()) throw DecodeError(at + ".int", "expected an integer");
    a.kind = AttributeValue::Kind::kInt;
    a.int_value = i->get<std::int64_t>();
  } else if (auto s = jf::String(&v, at, "string")) {
    a.kind = AttributeValue::Kind::kString;
    a.text = *s;
  } else if (auto ver = jf::String(&v, at, "version")) {
    a.kind = AttributeValue::Kind::kVersion;
    a.text = *ver;
  } else if (v.contains("ints") || v.contains("bools") || v.contains("strings") || v.contains("versions")) {
    a.kind = AttributeValue::Kind::kList;
  } else {
    throw DecodeError(at, "expected one of bool, int, string, version");
  }
  return a;
}

// A map of name -> {value: quantity} (capacity) or name -> {value: quantity} counters, in milli-units.
std::map<std::string, std::int64_t> Quantities(const json* object, const std::string& at, const char* key,
                                               const std::string& driver) {
  std::map<std::string, std::int64_t> out;
  const json* m = jf::Member(object, at, key);
  if (m == nullptr) return out;
  if (!m->is_object()) throw DecodeError(jf::Path(at, key), "expected an object");
  for (const auto& [name, entry] : m->items()) {
    const std::string path = jf::Path(jf::Path(at, key), name);
    const auto text = jf::String(&entry, path, "value");
    if (!text) throw DecodeError(path + ".value", "missing");
    try {
      out[driver.empty() ? name : Qualified(driver, name)] = ParseQuantityMilli(*text);
    } catch (const DecodeError& e) {
      throw e.Within(path + ".value");
    }
  }
  return out;
}

Device DeviceOf(const json& d, const std::string& at, const std::string& driver) {
  Device device;
  device.name = jf::String(&d, at, "name").value_or("");
  if (device.name.empty()) throw DecodeError(at + ".name", "missing");
  if (const json* attrs = jf::Member(&d, at, "attributes")) {
    if (!attrs->is_object()) throw DecodeError(at + ".attributes", "expected an object");
    for (const auto& [name, value] : attrs->items()) {
      device.attributes[Qualified(driver, name)] = AttributeOf(value, at + ".attributes." + name);
    }
  }
  device.capacity_milli = Quantities(&d, at, "capacity", driver);
  const json& consumes = ArrayOf(&d, at, "consumesCounters");
  for (size_t i = 0; i < consumes.size(); ++i) {
    const std::string path = Index(at + ".consumesCounters", i);
    CounterConsumption c;
    c.counter_set = jf::String(&consumes[i], path, "counterSet").value_or("");
    c.counters = Quantities(&consumes[i], path, "counters", "");
    device.consumes.push_back(std::move(c));
  }
  const json& taints = ArrayOf(&d, at, "taints");
  for (size_t i = 0; i < taints.size(); ++i) {
    const std::string path = Index(at + ".taints", i);
    DeviceTaint t;
    t.key = jf::String(&taints[i], path, "key").value_or("");
    t.value = jf::String(&taints[i], path, "value").value_or("");
    t.effect = jf::String(&taints[i], path, "effect").value_or("");
    t.time_added = jf::String(&taints[i], path, "timeAdded").value_or("");
    device.taints.push_back(std::move(t));
  }
  return device;
}

std::vector<std::string> SelectorsOf(const json* object, const std::string& at) {
  std::vector<std::string> out;
  const json& selectors = ArrayOf(object, at, "selectors");
  for (size_t i = 0; i < selectors.size(); ++i) {
    const std::string path = Index(at + ".selectors", i);
    const json* cel = jf::Member(&selectors[i], path, "cel");
    // A selector kind this reader does not know cannot be evaluated: the request matches nothing known.
    out.push_back(cel == nullptr ? std::string("false") : jf::String(cel, path + ".cel", "expression").value_or("false"));
  }
  return out;
}

DeviceAlternative AlternativeOf(const json& r, const std::string& at, std::string name) {
  DeviceAlternative a;
  a.name = std::move(name);
  a.device_class = jf::String(&r, at, "deviceClassName").value_or("");
  a.selectors = SelectorsOf(&r, at);
  const std::string mode = jf::String(&r, at, "allocationMode").value_or("ExactCount");
  if (mode == "All") {
    a.all = true;
  } else if (mode != "ExactCount") {
    throw DecodeError(at + ".allocationMode", "expected ExactCount or All, not \"" + mode + "\"");
  }
  if (const json* count = jf::Member(&r, at, "count")) {
    if (!count->is_number_integer() || count->get<std::int64_t>() < 0) throw DecodeError(at + ".count", "expected a whole number >= 0");
    a.count = count->get<std::int64_t>();
  }
  return a;
}

std::vector<DeviceRequest> RequestsOf(const json* spec, const std::string& at) {
  const json* devices = jf::Member(spec, at, "devices");
  const std::string devices_at = jf::Path(at, "devices");
  const json& requests = ArrayOf(devices, devices_at, "requests");
  std::vector<DeviceRequest> out;
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::string path = Index(devices_at + ".requests", i);
    DeviceRequest r;
    r.name = jf::String(&requests[i], path, "name").value_or("");
    if (const json* exactly = jf::Member(&requests[i], path, "exactly")) {
      r.alternatives.push_back(AlternativeOf(*exactly, path + ".exactly", r.name));
    }
    const json& first = ArrayOf(&requests[i], path, "firstAvailable");
    for (size_t j = 0; j < first.size(); ++j) {
      const std::string sub_at = Index(path + ".firstAvailable", j);
      r.alternatives.push_back(AlternativeOf(first[j], sub_at, r.name + "/" + jf::String(&first[j], sub_at, "name").value_or("")));
    }
    if (r.alternatives.empty()) throw DecodeError(path, "has neither exactly nor firstAvailable");
    out.push_back(std::move(r));
  }
  return out;
}

const json* Metadata(const json& object) { return jf::Member(&object, "", "metadata"); }

}  // namespace

const AttributeValue* Device::DriverAttribute(const std::string& driver, const std::string& name) const {
  auto it = attributes.find(driver + "/" + name);
  return it == attributes.end() ? nullptr : &it->second;
}

ResourceSlice ResourceSliceFromObject(const json& object) {
  ResourceSlice s;
  s.name = jf::String(Metadata(object), "metadata", "name").value_or("");
  const json* spec = jf::Member(&object, "", "spec");
  s.driver = jf::String(spec, "spec", "driver").value_or("");
  s.node_name = jf::String(spec, "spec", "nodeName").value_or("");
  if (const json* pool = jf::Member(spec, "spec", "pool")) {
    s.pool = jf::String(pool, "spec.pool", "name").value_or("");
    if (const json* g = jf::Member(pool, "spec.pool", "generation"); g != nullptr && g->is_number_integer()) {
      s.pool_generation = g->get<std::int64_t>();
    }
  }
  const json& devices = ArrayOf(spec, "spec", "devices");
  for (size_t i = 0; i < devices.size(); ++i) s.devices.push_back(DeviceOf(devices[i], Index("spec.devices", i), s.driver));
  const json& sets = ArrayOf(spec, "spec", "sharedCounters");
  for (size_t i = 0; i < sets.size(); ++i) {
    const std::string path = Index("spec.sharedCounters", i);
    s.counter_sets[jf::String(&sets[i], path, "name").value_or("")] = Quantities(&sets[i], path, "counters", "");
  }
  return s;
}

DeviceClass DeviceClassFromObject(const json& object) {
  DeviceClass c;
  c.name = jf::String(Metadata(object), "metadata", "name").value_or("");
  const json* spec = jf::Member(&object, "", "spec");
  c.selectors = SelectorsOf(spec, "spec");
  c.extended_resource_name = jf::String(spec, "spec", "extendedResourceName").value_or("");
  return c;
}

ResourceClaim ResourceClaimFromObject(const json& object) {
  ResourceClaim c;
  const json* meta = Metadata(object);
  c.namespace_ = jf::String(meta, "metadata", "namespace").value_or("");
  c.name = jf::String(meta, "metadata", "name").value_or("");
  c.uid = jf::String(meta, "metadata", "uid").value_or("");
  c.requests = RequestsOf(jf::Member(&object, "", "spec"), "spec");
  const json* status = jf::Member(&object, "", "status");
  if (const json* allocation = jf::Member(status, "status", "allocation")) {
    c.allocated = true;
    const json* devices = jf::Member(allocation, "status.allocation", "devices");
    const json& results = ArrayOf(devices, "status.allocation.devices", "results");
    for (size_t i = 0; i < results.size(); ++i) {
      const std::string path = Index("status.allocation.devices.results", i);
      AllocatedDevice d;
      d.request = jf::String(&results[i], path, "request").value_or("");
      d.driver = jf::String(&results[i], path, "driver").value_or("");
      d.pool = jf::String(&results[i], path, "pool").value_or("");
      d.device = jf::String(&results[i], path, "device").value_or("");
      c.results.push_back(std::move(d));
    }
  }
  const json& reserved = ArrayOf(status, "status", "reservedFor");
  for (size_t i = 0; i < reserved.size(); ++i) {
    c.reserved_for.push_back(jf::String(&reserved[i], Index("status.reservedFor", i), "uid").value_or(""));
  }
  return c;
}

ResourceClaimTemplate ResourceClaimTemplateFromObject(const json& object) {
  ResourceClaimTemplate t;
  const json* meta = Metadata(object);
  t.namespace_ = jf::String(meta, "metadata", "namespace").value_or("");
  t.name = jf::String(meta, "metadata", "name").value_or("");
  const json* spec = jf::Member(&object, "", "spec");
  t.requests = RequestsOf(jf::Member(spec, "spec", "spec"), "spec.spec");
  return t;
}

}  // namespace gangplank::cache::dra
