#include "apiserver-double/patches.h"

#include <algorithm>
#include <string>

#include "apiserver-double/api_error.h"

namespace gangplank::apiserver_double {
namespace {

using nlohmann::json;

// Lists of the built-in types that merge by a key under strategic merge patch (patchStrategy=merge in
// kubernetes/api core/v1, meta/v1 and admissionregistration/v1). Lists not named here are replaced wholesale, as node
// spec.taints and pod tolerations are.
const char* MergeKeyFor(const std::string& field, const json& sample_item) {
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" || field == "env" ||
      field == "volumes" || field == "imagePullSecrets" || field == "resourceClaims" || field == "hostAliases") {
    return field == "hostAliases" ? "ip" : "name";
  }
  // admissionregistration/v1 webhook configurations.
  if (field == "webhooks" || field == "matchConditions") return "name";
  if (field == "conditions" || field == "addresses") return "type";
  if (field == "volumeMounts") return "mountPath";
  if (field == "volumeDevices") return "devicePath";
  if (field == "ownerReferences") return "uid";
  if (field == "ports") return sample_item.is_object() && sample_item.contains("containerPort") ? "containerPort" : "port";
  return nullptr;
}

bool IsPrimitiveMergeList(const std::string& field) { return field == "finalizers"; }

json SmpObject(const json& original, const json& patch);

json SmpList(const std::string& field, const json& original, const json& patch) {
  if (!original.is_array()) {
    json out = json::array();
    for (const auto& item : patch) {
      if (!(item.is_object() && item.contains("$patch"))) out.push_back(item);
    }
    return out;
  }
  if (IsPrimitiveMergeList(field)) {
    json out = original;
    for (const auto& item : patch) {
      if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
    return out;
  }
  const char* key = patch.empty() ? nullptr : MergeKeyFor(field, patch.front());
  if (key == nullptr) return patch;  // replace strategy
  // A list-level {"$patch":"replace"} item means: the rest of the patch list is the new list.
  for (const auto& item : patch) {
    if (item.is_object() && item.value("$patch", std::string()) == "replace") {
      json out = json::array();
      for (const auto& i : patch) {
        if (!(i.is_object() && i.contains("$patch"))) out.push_back(i);
      }
      return out;
    }
  }
  json out = original;
  for (const auto& item : patch) {
    if (!item.is_object() || !item.contains(key)) {
      throw BadRequest("strategic merge patch: list \"" + field + "\" items need the merge key \"" + key + "\"");
    }
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const json& o) { return o.is_object() && o.contains(key) && o[key] == item[key]; });
    const bool remove = item.value("$patch", std::string()) == "delete";
    if (remove) {
      if (same != out.end()) out.erase(same);
    } else if (same != out.end()) {
      *same = SmpObject(*same, item);
    } else {
      json added = item;
      added.erase("$patch");
      out.push_back(added);
    }
  }
  return out;
}

json SmpObject(const json& original, const json& patch) {
  if (!patch.is_object()) return patch;
  if (patch.value("$patch", std::string()) == "replace") {
    json out = patch;
    out.erase("$patch");
    return out;
  }
  if (patch.value("$patch", std::string()) == "delete") return nullptr;
  json out = original.is_object() ? original : json::object();
  if (patch.contains("$retainKeys") && patch["$retainKeys"].is_array()) {
    json kept = json::object();
    for (const auto& k : patch["$retainKeys"]) {
      if (k.is_string() && out.contains(k.get<std::string>())) kept[k.get<std::string>()] = out[k.get<std::string>()];
    }
    out = kept;
  }
  for (const auto& [key, value] : patch.items()) {
    if (key == "$retainKeys" || key == "$patch" || key.rfind("$setElementOrder/", 0) == 0) continue;
    if (key.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      const std::string field = key.substr(std::string("$deleteFromPrimitiveList/").size());
      if (out.contains(field) && out[field].is_array()) {
        json kept = json::array();
        for (const auto& v : out[field]) {
          if (std::find(value.begin(), value.end(), v) == value.end()) kept.push_back(v);
        }
        out[field] = kept;
      }
      continue;
    }
    if (value.is_null()) {
      out.erase(key);
    } else if (value.is_object()) {
      json merged = SmpObject(out.contains(key) ? out[key] : json(), value);
      if (merged.is_null()) {
        out.erase(key);
      } else {
        out[key] = merged;
      }
    } else if (value.is_array()) {
      out[key] = SmpList(key, out.contains(key) ? out[key] : json(), value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

}  // namespace

json ApplyMergePatch(const json& target, const json& patch) {
  if (!patch.is_object()) throw BadRequest("merge patch body must be a JSON object");
  json out = target;
  out.merge_patch(patch);
  return out;
}

json ApplyJsonPatch(const json& target, const json& patch) {
  if (!patch.is_array()) throw BadRequest("json patch body must be a JSON array of operations");
  try {
    return target.patch(patch);
  } catch (const json::exception&) {
    // A failed "test", a missing path, an unknown op: kube-apiserver 1.35 answers each with this bare
    // 422 (errors.NewInvalid with no kind or causes), naming nothing.
    throw ApiError(422, "Invalid", "the server rejected our request due to an error in our request", json::object());
  }
}

json ApplyStrategicMergePatch(const json& target, const json& patch) {
  if (!patch.is_object()) throw BadRequest("strategic merge patch body must be a JSON object");
  return SmpObject(target, patch);
}

}  // namespace gangplank::apiserver_double
