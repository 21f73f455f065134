#include "cache/dra/gpu_partition.h"

#include <algorithm>
#include <cctype>

namespace gangplank::cache::dra {
namespace {

bool IsMemorySlice(const std::string& counter) {
  return counter.rfind("memory-slice", 0) == 0 || counter.rfind("memorySlice", 0) == 0;
}

engine::MilliGpu ShareOf(std::int64_t part, std::int64_t whole) {
  if (part <= 0 || whole <= 0) return engine::kMilliPerGpu;
  const std::int64_t milli = (part * engine::kMilliPerGpu + whole - 1) / whole;  // Rounded up: never under-counted.
  return static_cast<engine::MilliGpu>(std::clamp<std::int64_t>(milli, 1, engine::kMilliPerGpu));
}

// Compute slices of seven by the profile's name ("3g.40gb": 3 of 7), the last resort.
engine::MilliGpu ShareByProfile(const std::string& profile) {
  size_t digits = 0;
  while (digits < profile.size() && std::isdigit(static_cast<unsigned char>(profile[digits]))) ++digits;
  if (digits == 0 || digits >= profile.size() || profile[digits] != 'g') return engine::kMilliPerGpu;
  return ShareOf(std::stoll(profile.substr(0, digits)), 7);
}

std::string StringAttribute(const std::string& driver, const Device& device, const std::string& name) {
  const AttributeValue* v = device.DriverAttribute(driver, name);
  return v != nullptr && v->kind == AttributeValue::Kind::kString ? v->text : std::string();
}

}  // namespace

PartitionShape ShapeOf(const std::string& driver, const std::string& pool, const Device& device,
                       const std::map<std::string, std::map<std::string, std::int64_t>>& counter_sets) {
  PartitionShape shape;
  const std::string type = StringAttribute(driver, device, "type");
  const std::string parent_uuid = StringAttribute(driver, device, "parentUUID");
  const CounterConsumption* consumed = device.consumes.empty() ? nullptr : &device.consumes.front();
  const std::map<std::string, std::int64_t>* set = nullptr;
  if (consumed != nullptr) {
    auto it = counter_sets.find(driver + "/" + pool + "/" + consumed->counter_set);
    if (it != counter_sets.end()) set = &it->second;
  }
  // Whole when it takes every counter of its set in full.
  bool takes_all = set != nullptr;
  if (set != nullptr) {
    for (const auto& [counter, amount] : *set) {
      auto c = consumed->counters.find(counter);
      if (c == consumed->counters.end() || c->second < amount) takes_all = false;
    }
  }
  shape.partition = type == "mig" || !parent_uuid.empty() || (set != nullptr && !takes_all);
  if (!shape.partition) return shape;
  if (consumed != nullptr) shape.parent = driver + "/" + pool + "/" + consumed->counter_set;
  else shape.parent = driver + "/" + pool + "/uuid:" + parent_uuid;
  if (set != nullptr) {
    std::int64_t slices = 0;
    std::int64_t taken = 0;
    for (const auto& [counter, amount] : *set) {
      if (IsMemorySlice(counter)) ++slices;
    }
    for (const auto& [counter, amount] : consumed->counters) {
      if (IsMemorySlice(counter) && amount > 0) ++taken;
    }
    if (slices > 0 && taken > 0) {
      shape.share = ShareOf(taken, slices);
      return shape;
    }
    auto memory = set->find("memory");
    auto used = consumed->counters.find("memory");
    if (memory != set->end() && used != consumed->counters.end()) {
      shape.share = ShareOf(used->second, memory->second);
      return shape;
    }
  }
  shape.share = ShareByProfile(StringAttribute(driver, device, "profile"));
  return shape;
}

std::vector<std::string> ParentKeysOf(const std::string& driver, const std::string& pool, const Device& device) {
  std::vector<std::string> keys;
  for (const CounterConsumption& c : device.consumes) keys.push_back(driver + "/" + pool + "/" + c.counter_set);
  if (const std::string uuid = StringAttribute(driver, device, "uuid"); !uuid.empty()) {
    keys.push_back(driver + "/" + pool + "/uuid:" + uuid);
  }
  return keys;
}

std::string ModelOf(const std::string& driver, const Device& device) {
  std::string model = StringAttribute(driver, device, "productName");
  std::replace(model.begin(), model.end(), ' ', '-');
  return model;
}

}  // namespace gangplank::cache::dra
