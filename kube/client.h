// Typed requests on top of RestClient: CRUD for any ResourceDescriptor (core kinds, CRDs, custom
// resources and their /status), patches (merge, JSON, server-side apply), conflict-retrying updates,
// status writes with observedGeneration, pods/binding and pods/eviction.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kube/list_watch.h"
#include "kube/resource.h"
#include "kube/rest_client.h"

namespace gangplank::kube {

using Json = nlohmann::json;

enum class PatchType { kMerge, kJson, kStrategicMerge, kApply };
std::string ContentType(PatchType type);

// RFC 7386 merge patch turning `from` into `to` (null removes a key; arrays are replaced wholesale).
Json MakeMergePatch(const Json& from, const Json& to);
// RFC 6902 JSON patch turning `from` into `to`. With guard_resource_version the patch starts with a
// `test` of /metadata/resourceVersion, so it fails with 409/422 if someone else wrote in between — the
// safe way to edit lists such as finalizers or node taints.
Json MakeJsonPatch(const Json& from, const Json& to, bool guard_resource_version = true);

struct WriteOptions {
  std::string field_manager;  // required for apply
  bool force = false;         // apply only
  bool dry_run = false;
  bool strict = false;        // fieldValidation=Strict
};

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // Background | Foreground | Orphan
  std::string precondition_uid;
  std::string precondition_resource_version;
};

enum class BindOutcome { kBound, kAlreadyBoundHere, kPodGone };
enum class EvictOutcome { kEvicted, kAlreadyGone };

class Client {
 public:
  explicit Client(std::shared_ptr<RestClient> rest) : rest_(std::move(rest)) {}

  Json Get(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
           const std::string& subresource = "");
  std::optional<Json> TryGet(const ResourceDescriptor& r, const std::string& ns, const std::string& name);
  // All pages, merged into one List object ({"metadata":{"resourceVersion"},"items":[...]}).
  Json List(const ResourceDescriptor& r, const std::string& ns = "", ListOptions options = {});
  Json Create(const ResourceDescriptor& r, const std::string& ns, const Json& object, const WriteOptions& w = {});
  // PUT; the object must carry metadata.resourceVersion (optimistic concurrency) — invalid_argument if not.
  Json Update(const ResourceDescriptor& r, const std::string& ns, const Json& object, const WriteOptions& w = {});
  Json UpdateStatus(const ResourceDescriptor& r, const std::string& ns, const Json& object,
                     const WriteOptions& w = {});
  Json Patch(const ResourceDescriptor& r, const std::string& ns, const std::string& name, PatchType type,
             const Json& patch, const std::string& subresource = "", const WriteOptions& w = {});
  // Server-side apply of `object` (must have apiVersion, kind, metadata.name) as field_manager.
  Json Apply(const ResourceDescriptor& r, const std::string& ns, const Json& object, const WriteOptions& w,
             const std::string& subresource = "");
  // Returns false if the object did not exist.
  bool Remove(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
              const DeleteOptions& options = {});

  // Read-modify-write with conflict retry: GET, mutate (return false = nothing to do), PUT; on 409 re-read
  // and try again up to `attempts` times. Returns the final object.
  Json Modify(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
              const std::function<bool(Json& object)>& mutate, int attempts = 5);
  // Status write through /status: GET, fill (status, object) with observedGeneration preset to
  // metadata.generation, PUT .../status; conflict-retried. Skips the write if status is unchanged.
  Json WriteStatus(const ResourceDescriptor& r, const std::string& ns, const std::string& name,
                    const std::function<void(Json& status, const Json& object)>& fill, int attempts = 5);

  template <class T>
  T GetAs(const ResourceDescriptor& r, const std::string& ns, const std::string& name) {
    RestRequest request;
    request.path = r.ObjectPath(ns, name);
    auto response = rest_->Execute(request);
    ObjectDecoder<T> decoder;
    return decoder.DecodeObject(response.body);
  }

  // POST pods/binding. 409 "already assigned" counts as success when it is to the same node; a pod that
  // is gone or being deleted is a no-op; bound elsewhere throws ConflictError. Not blindly retried: after
  // an ambiguous failure the pod is re-read to learn whether the binding happened.
  BindOutcome BindPod(const std::string& ns, const std::string& pod, const std::string& node,
                       const std::string& pod_uid = "");
  // POST pods/eviction (policy/v1). Throws DisruptionBudgetError when a PDB forbids it (retry later, do
  // not treat as throttling); 404 = already gone.
  EvictOutcome EvictPod(const std::string& ns, const std::string& pod, std::optional<int64_t> grace_period_seconds = {},
                         const std::string& pod_uid = "");

  RestClient& rest() { return *rest_; }

 private:
  QueryParams WriteQuery(const WriteOptions& w) const;
  std::shared_ptr<RestClient> rest_;
};

}  // namespace gangplank::kube
