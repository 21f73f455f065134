#include "cache/dra/gpu_inventory.h"

#include <algorithm>
#include <cmath>

#include "cache/dra/gpu_partition.h"
#include "cache/objects/conventions.h"
#include "cache/objects/convert.h"

namespace gangplank::cache::dra {
namespace {

std::string DeviceKey(const std::string& driver, const std::string& pool, const std::string& device) {
  return driver + "/" + pool + "/" + device;
}

std::string NamespacedKey(const std::string& namespace_, const std::string& name) { return namespace_ + "/" + name; }

std::string ClaimRef(const std::string& namespace_, const std::string& name) { return "claim:" + NamespacedKey(namespace_, name); }
std::string TemplateRef(const std::string& namespace_, const std::string& name) {
  return "template:" + NamespacedKey(namespace_, name);
}

std::string TaintText(const DeviceTaint& t) { return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect; }

// Extended resources a pod's containers ask for that a DeviceClass serves, other than nvidia.com/gpu
// (counted from the containers themselves): the class's implicit name and any other extendedResourceName.
constexpr std::string_view kClassResourcePrefix = "deviceclass.resource.kubernetes.io/";

bool MayUseDra(const PodInfo& pod) {
  if (!pod.resource_claims.empty() || !pod.extended_resource_claim.empty()) return true;
  auto names = [](const std::vector<ContainerResources>& cs) {
    for (const ContainerResources& c : cs) {
      for (const ResourceList* list : {&c.requests, &c.limits}) {
        for (const auto& [name, amount] : *list) {
          if (name.find('/') != std::string::npos && name != kGpuResource && name != kGpuMilliResource) return true;
        }
      }
    }
    return false;
  };
  return names(pod.containers) || names(pod.init_containers);
}

}  // namespace

const std::vector<std::string>& DefaultGpuDeviceClasses() {
  static const std::vector<std::string> kDefaults{"gpu.nvidia.com", "mig.nvidia.com"};
  return kDefaults;
}

GpuInventory::GpuInventory() : pool_classes_(DefaultGpuDeviceClasses()) {}

bool GpuInventory::Governed(const DeviceClass& c) const {
  return c.extended_resource_name == kGpuResource ||
         std::find(pool_classes_.begin(), pool_classes_.end(), c.name) != pool_classes_.end();
}

std::vector<const DeviceClass*> GpuInventory::GovernedClassesLocked() const {
  std::vector<const DeviceClass*> out;
  for (const auto& [name, c] : classes_) {
    if (Governed(c)) out.push_back(&c);
  }
  return out;
}

// Entries for one slice's devices: whether each is a GPU, a part of one and how large a part, fenced.
void GpuInventory::IndexSliceLocked(const ResourceSlice& slice, const std::vector<const DeviceClass*>& governed) {
  if (slice.node_name.empty()) return;  // Network-attached pools are no node's GPUs.
  for (const Device& d : slice.devices) {
    const std::string key = DeviceKey(slice.driver, slice.pool, d.name);
    // While a driver rolls its pool to a new generation both slices exist: the newer one's devices count.
    if (auto it = devices_.find(key); it != devices_.end() && it->second.generation > slice.pool_generation) continue;
    DeviceEntry e;
    e.slice = slice.name;
    e.generation = slice.pool_generation;
    e.driver = slice.driver;
    e.pool = slice.pool;
    e.node = slice.node_name;
    e.device = &d;
    e.gpu = std::any_of(governed.begin(), governed.end(), [&](const DeviceClass* c) {
      if (c->selectors.empty()) return false;  // A class that selects everything is no GPU class.
      return std::all_of(c->selectors.begin(), c->selectors.end(), [&](const std::string& expression) {
        std::string error;
        return selectors_.Matches(expression, slice.driver, d, &error);
      });
    });
    const PartitionShape shape = ShapeOf(slice.driver, slice.pool, d, counter_sets_);
    e.partition = shape.partition;
    e.share = shape.share;
    e.parent = shape.parent;
    e.model = ModelOf(slice.driver, d);
    e.fenced = std::any_of(d.taints.begin(), d.taints.end(), [](const DeviceTaint& t) { return t.Fences(); });
    node_devices_[slice.node_name].insert(key);
    devices_[key] = std::move(e);
  }
}

void GpuInventory::UnindexSliceLocked(const ResourceSlice& slice) {
  for (const auto& [set, counters] : slice.counter_sets) counter_sets_.erase(DeviceKey(slice.driver, slice.pool, set));
  for (const Device& d : slice.devices) {
    const std::string key = DeviceKey(slice.driver, slice.pool, d.name);
    auto entry = devices_.find(key);
    if (entry == devices_.end() || entry->second.slice != slice.name) continue;  // Another slice's now.
    devices_.erase(entry);
    auto node = node_devices_.find(slice.node_name);
    if (node == node_devices_.end()) continue;
    node->second.erase(key);
    if (node->second.empty()) node_devices_.erase(node);
  }
}

// Rebuilds every device entry (a class or the governed set changed).
void GpuInventory::ReindexLocked() {
  devices_.clear();
  node_devices_.clear();
  counter_sets_.clear();
  candidates_.clear();
  for (const auto& [name, slice] : slices_) {
    for (const auto& [set, counters] : slice.counter_sets) counter_sets_[DeviceKey(slice.driver, slice.pool, set)] = counters;
  }
  const std::vector<const DeviceClass*> governed = GovernedClassesLocked();
  for (const auto& [name, slice] : slices_) IndexSliceLocked(slice, governed);
}

Affected GpuInventory::UpsertSlice(ResourceSlice slice) {
  std::lock_guard lock(mu_);
  Affected out;
  auto it = slices_.find(slice.name);
  if (it != slices_.end()) {
    if (it->second == slice) return out;
    if (!it->second.node_name.empty()) out.nodes.insert(it->second.node_name);
    UnindexSliceLocked(it->second);
  }
  if (!slice.node_name.empty()) out.nodes.insert(slice.node_name);
  const std::string name = slice.name;
  const ResourceSlice& stored = slices_[name] = std::move(slice);
  candidates_.clear();
  const std::vector<const DeviceClass*> governed = GovernedClassesLocked();
  if (stored.counter_sets.empty()) {
    IndexSliceLocked(stored, governed);
  } else {
    // Partitions elsewhere in the pool take their share of these counters: index the pool again.
    for (const auto& [set, counters] : stored.counter_sets) counter_sets_[DeviceKey(stored.driver, stored.pool, set)] = counters;
    for (const auto& [n, s] : slices_) {
      if (s.driver != stored.driver || s.pool != stored.pool) continue;
      if (n != name) UnindexSliceLocked(s);
      for (const auto& [set, counters] : s.counter_sets) counter_sets_[DeviceKey(s.driver, s.pool, set)] = counters;
      IndexSliceLocked(s, governed);
      if (!s.node_name.empty()) out.nodes.insert(s.node_name);
    }
  }
  out.pods = UnallocatedPodsLocked();
  return out;
}

Affected GpuInventory::DeleteSlice(const std::string& name) {
  std::lock_guard lock(mu_);
  Affected out;
  auto it = slices_.find(name);
  if (it == slices_.end()) return out;
  const ResourceSlice gone = std::move(it->second);
  slices_.erase(it);
  if (!gone.node_name.empty()) out.nodes.insert(gone.node_name);
  UnindexSliceLocked(gone);
  candidates_.clear();
  // What the rest of its pool publishes counts again (an older generation's devices, shared counters).
  const std::vector<const DeviceClass*> governed = GovernedClassesLocked();
  for (const auto& [n, s] : slices_) {
    if (s.driver != gone.driver || s.pool != gone.pool) continue;
    UnindexSliceLocked(s);
    for (const auto& [set, counters] : s.counter_sets) counter_sets_[DeviceKey(s.driver, s.pool, set)] = counters;
    IndexSliceLocked(s, governed);
    if (!s.node_name.empty()) out.nodes.insert(s.node_name);
  }
  out.pods = UnallocatedPodsLocked();
  return out;
}

Affected GpuInventory::UpsertClass(DeviceClass device_class) {
  std::lock_guard lock(mu_);
  auto it = classes_.find(device_class.name);
  if (it != classes_.end() && it->second == device_class) return {};
  classes_[device_class.name] = std::move(device_class);
  ReindexLocked();
  Affected out;
  out.all = true;
  return out;
}

Affected GpuInventory::DeleteClass(const std::string& name) {
  std::lock_guard lock(mu_);
  if (classes_.erase(name) == 0) return {};
  ReindexLocked();
  Affected out;
  out.all = true;
  return out;
}

Affected GpuInventory::SetGpuClasses(std::vector<std::string> classes) {
  if (classes.empty()) classes = DefaultGpuDeviceClasses();
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  std::lock_guard lock(mu_);
  std::vector<std::string> current = pool_classes_;
  std::sort(current.begin(), current.end());
  if (current == classes) return {};
  pool_classes_ = std::move(classes);
  ReindexLocked();
  Affected out;
  out.all = true;
  return out;
}

void GpuInventory::CountAllocationLocked(const ResourceClaim& claim, int sign) {
  for (const AllocatedDevice& d : claim.results) {
    const std::string key = DeviceKey(d.driver, d.pool, d.device);
    if ((allocated_[key] += sign) <= 0) allocated_.erase(key);
  }
}

Affected GpuInventory::UpsertClaim(ResourceClaim claim) {
  std::lock_guard lock(mu_);
  const std::string key = NamespacedKey(claim.namespace_, claim.name);
  auto it = claims_.find(key);
  if (it != claims_.end() && it->second == claim) return {};
  Affected out;
  out.pods = PodsUsingLocked(ClaimRef(claim.namespace_, claim.name));
  if (it != claims_.end()) {
    CountAllocationLocked(it->second, -1);
    out.nodes = FencedNodesOfLocked(it->second);
  }
  CountAllocationLocked(claim, +1);
  for (const std::string& n : FencedNodesOfLocked(claim)) out.nodes.insert(n);
  claims_[key] = std::move(claim);
  return out;
}

Affected GpuInventory::DeleteClaim(const std::string& namespace_, const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = claims_.find(NamespacedKey(namespace_, name));
  if (it == claims_.end()) return {};
  Affected out;
  out.pods = PodsUsingLocked(ClaimRef(namespace_, name));
  CountAllocationLocked(it->second, -1);
  out.nodes = FencedNodesOfLocked(it->second);
  claims_.erase(it);
  return out;
}

std::set<std::string> GpuInventory::FencedNodesOfLocked(const ResourceClaim& claim) const {
  std::set<std::string> out;
  for (const AllocatedDevice& d : claim.results) {
    auto e = devices_.find(DeviceKey(d.driver, d.pool, d.device));
    if (e != devices_.end() && e->second.fenced) out.insert(e->second.node);
  }
  return out;
}

Affected GpuInventory::UpsertTemplate(ResourceClaimTemplate claim_template) {
  std::lock_guard lock(mu_);
  const std::string key = NamespacedKey(claim_template.namespace_, claim_template.name);
  auto it = templates_.find(key);
  if (it != templates_.end() && it->second == claim_template) return {};
  Affected out;
  out.pods = PodsUsingLocked(TemplateRef(claim_template.namespace_, claim_template.name));
  templates_[key] = std::move(claim_template);
  return out;
}

Affected GpuInventory::DeleteTemplate(const std::string& namespace_, const std::string& name) {
  std::lock_guard lock(mu_);
  if (templates_.erase(NamespacedKey(namespace_, name)) == 0) return {};
  Affected out;
  out.pods = PodsUsingLocked(TemplateRef(namespace_, name));
  return out;
}

void GpuInventory::NotePod(const PodInfo& pod) {
  std::vector<std::string> refs;
  for (const PodClaimRef& r : pod.resource_claims) {
    if (!r.claim_name.empty()) refs.push_back(ClaimRef(pod.namespace_, r.claim_name));
    if (!r.template_name.empty()) refs.push_back(TemplateRef(pod.namespace_, r.template_name));
  }
  for (const auto& [name, claim] : pod.claim_statuses) {
    if (!claim.empty()) refs.push_back(ClaimRef(pod.namespace_, claim));
  }
  if (!pod.extended_resource_claim.empty()) refs.push_back(ClaimRef(pod.namespace_, pod.extended_resource_claim));
  const bool uses = !refs.empty() || MayUseDra(pod);
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod.uid);
  if (it != pods_.end()) {
    for (const std::string& r : it->second.references) {
      auto users = users_.find(r);
      if (users == users_.end()) continue;
      users->second.erase(pod.uid);
      if (users->second.empty()) users_.erase(users);
    }
    if (!uses) {
      pods_.erase(it);
      return;
    }
  } else if (!uses) {
    return;
  }
  for (const std::string& r : refs) users_[r].insert(pod.uid);
  pods_[pod.uid] = PodUse{pod.Key(), std::move(refs)};
}

void GpuInventory::ForgetPod(const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  for (const std::string& r : it->second.references) {
    auto users = users_.find(r);
    if (users == users_.end()) continue;
    users->second.erase(uid);
    if (users->second.empty()) users_.erase(users);
  }
  pods_.erase(it);
}

std::string GpuInventory::PodKey(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? std::string() : it->second.key;
}

std::set<std::string> GpuInventory::PodsUsingLocked(const std::string& reference) const {
  auto it = users_.find(reference);
  return it == users_.end() ? std::set<std::string>() : it->second;
}

// Pods whose demand is an estimate from the devices (a claim not yet allocated, a template not yet
// made into a claim, an implicit class resource): a change of the devices may change it.
std::set<std::string> GpuInventory::UnallocatedPodsLocked() const {
  std::set<std::string> out;
  for (const auto& [uid, use] : pods_) {
    bool estimate = use.references.empty();
    for (const std::string& r : use.references) {
      if (r.rfind("template:", 0) == 0) {
        estimate = true;
        break;
      }
      auto claim = claims_.find(r.substr(6));
      if (claim == claims_.end() || !claim->second.allocated) {
        estimate = true;
        break;
      }
    }
    if (estimate) out.insert(uid);
  }
  return out;
}

NodeDraGpus GpuInventory::GpusOf(std::string_view node) const {
  std::lock_guard lock(mu_);
  NodeDraGpus out;
  auto it = node_devices_.find(std::string(node));
  if (it == node_devices_.end()) return out;
  std::set<std::string> whole_keys;  // Parent keys whole GPUs answer to (their counter sets, their UUIDs).
  std::set<std::string> parents;     // Parents of partitions with no whole GPU published beside them.
  for (const std::string& key : it->second) {
    const DeviceEntry& e = devices_.at(key);
    if (!e.gpu) continue;
    if (e.fenced) {
      for (const DeviceTaint& t : e.device->taints) {
        if (t.Fences()) out.fenced.push_back({key, TaintText(t), t.time_added});
      }
      // A fenced GPU still held by a pod counts until released: the pod runs on it until its gang moves.
      if (!e.partition && allocated_.count(key) == 0) continue;
    }
    if (out.model.empty()) out.model = e.model;
    if (e.partition) {
      if (!e.fenced || allocated_.count(key) > 0) parents.insert(e.parent);
      continue;
    }
    ++out.gpus;
    for (const std::string& k : ParentKeysOf(e.driver, e.pool, *e.device)) whole_keys.insert(k);
  }
  for (const std::string& p : parents) {
    if (whole_keys.count(p) == 0) ++out.gpus;  // Static MIG: the parent GPU is only seen through its parts.
  }
  return out;
}

std::vector<const GpuInventory::DeviceEntry*> GpuInventory::CandidatesLocked(const DeviceAlternative& alternative,
                                                                              std::string* problem) const {
  auto c = classes_.find(alternative.device_class);
  if (c == classes_.end()) {
    *problem = "DeviceClass \"" + alternative.device_class + "\" does not exist";
    return {};
  }
  std::string cache_key = alternative.device_class;
  for (const std::string& s : alternative.selectors) cache_key += '\x1f' + s;
  if (auto hit = candidates_.find(cache_key); hit != candidates_.end()) return hit->second;
  std::vector<const DeviceEntry*> out;
  std::string last_error;
  for (const auto& [key, e] : devices_) {
    bool match = true;
    for (const std::vector<std::string>* list : {&c->second.selectors, &alternative.selectors}) {
      for (const std::string& expression : *list) {
        std::string error;
        if (!selectors_.Matches(expression, e.driver, *e.device, &error)) {
          if (!error.empty()) last_error = error;
          match = false;
          break;
        }
      }
      if (!match) break;
    }
    if (match) out.push_back(&e);
  }
  if (out.empty() && !last_error.empty()) *problem = "its selectors fail: " + last_error;
  candidates_[cache_key] = out;
  return out;
}

// What one request asks of GPUs: its largest alternative, by the devices they match.
GpuInventory::Charge GpuInventory::ChargeOfRequestLocked(const DeviceRequest& request,
                                                         std::vector<std::string>& problems) const {
  Charge best;
  bool any = false;
  std::vector<std::string> why;
  for (const DeviceAlternative& a : request.alternatives) {
    Charge charge;
    std::string problem;
    const std::vector<const DeviceEntry*> candidates = CandidatesLocked(a, &problem);
    auto c = classes_.find(a.device_class);
    const bool governed = c != classes_.end() && Governed(c->second);
    std::vector<const DeviceEntry*> gpus;
    std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(gpus), [](const DeviceEntry* e) { return e->gpu; });
    if (candidates.empty()) {
      if (problem.empty() && governed) problem = "no device in the cluster matches it";
      if (!problem.empty()) why.push_back("request \"" + a.name + "\": " + problem);
      // A GPU class asked for devices nobody publishes: count what it asks, so no tenant gets around a
      // queue limit by asking the impossible first.
      if (governed) charge.whole = static_cast<int>(std::min<std::int64_t>(a.all ? 1 : a.count, 1 << 20));
    } else if (!gpus.empty()) {
      std::int64_t count = a.count;
      if (a.all) {
        std::map<std::string, std::int64_t> per_node;
        for (const DeviceEntry* e : gpus) ++per_node[e->node];
        count = 0;
        for (const auto& [node, n] : per_node) count = std::max(count, n);
      }
      const bool whole = std::any_of(gpus.begin(), gpus.end(), [](const DeviceEntry* e) { return !e->partition; });
      engine::MilliGpu share = 0;
      for (const DeviceEntry* e : gpus) share = std::max(share, e->share);
      if (whole) charge.whole = static_cast<int>(std::min<std::int64_t>(count, 1 << 20));
      else charge.milli = static_cast<engine::MilliGpu>(std::min<std::int64_t>(count * share, std::int64_t{1} << 30));
      for (const DeviceEntry* e : gpus) {
        if (!e->model.empty()) charge.models.insert(e->model);
      }
    }
    if (!any || charge.Total() > best.Total()) best = charge;
    any = true;
  }
  // A firstAvailable request fails only when none of its alternatives can be had.
  if (why.size() == request.alternatives.size()) problems.insert(problems.end(), why.begin(), why.end());
  return best;
}

GpuInventory::Charge GpuInventory::ChargeOfAllocationLocked(const ResourceClaim& claim,
                                                            std::vector<HeldDevice>& held) const {
  Charge charge;
  for (const AllocatedDevice& d : claim.results) {
    const std::string key = DeviceKey(d.driver, d.pool, d.device);
    auto it = devices_.find(key);
    if (it == devices_.end()) continue;  // Its slice is gone; the node offers it no more either.
    held.push_back({it->second.node, key});
    if (!it->second.gpu) continue;
    if (it->second.partition) charge.milli += it->second.share;
    else ++charge.whole;
    if (!it->second.model.empty()) charge.models.insert(it->second.model);
  }
  return charge;
}

void GpuInventory::AddClaimLocked(const ResourceClaim* claim, const std::vector<DeviceRequest>& requests,
                                  const std::string& what, Charge& total, DraDemand& demand) const {
  Charge charge;
  if (claim != nullptr && claim->allocated) {
    charge = ChargeOfAllocationLocked(*claim, demand.held);
  } else {
    demand.allocated = false;
    std::vector<std::string> problems;
    for (const DeviceRequest& r : requests) {
      Charge c = ChargeOfRequestLocked(r, problems);
      charge.whole += c.whole;
      charge.milli += c.milli;
      charge.models.insert(c.models.begin(), c.models.end());
    }
    for (const std::string& p : problems) demand.problems.push_back(what + " " + p);
  }
  total.whole += charge.whole;
  total.milli += charge.milli;
  total.models.insert(charge.models.begin(), charge.models.end());
}

std::shared_ptr<const DraDemand> GpuInventory::DemandOf(const PodInfo& pod) const {
  if (!MayUseDra(pod)) return nullptr;
  std::lock_guard lock(mu_);
  auto demand = std::make_shared<DraDemand>();
  demand->allocated = !pod.resource_claims.empty();
  Charge total;
  for (const PodClaimRef& ref : pod.resource_claims) {
    if (!ref.claim_name.empty()) {
      const std::string what = "ResourceClaim \"" + ref.claim_name + "\"";
      auto claim = claims_.find(NamespacedKey(pod.namespace_, ref.claim_name));
      if (claim == claims_.end()) {
        demand->allocated = false;
        demand->problems.push_back(what + " does not exist");
        continue;
      }
      AddClaimLocked(&claim->second, claim->second.requests, what, total, *demand);
      continue;
    }
    std::string generated;
    for (const auto& [name, claim] : pod.claim_statuses) {
      if (name == ref.name) generated = claim;
    }
    auto claim = generated.empty() ? claims_.end() : claims_.find(NamespacedKey(pod.namespace_, generated));
    if (claim != claims_.end()) {
      AddClaimLocked(&claim->second, claim->second.requests, "ResourceClaim \"" + generated + "\"", total, *demand);
      continue;
    }
    const std::string what = "ResourceClaimTemplate \"" + ref.template_name + "\"";
    auto t = templates_.find(NamespacedKey(pod.namespace_, ref.template_name));
    if (t == templates_.end()) {
      demand->allocated = false;
      demand->problems.push_back(what + " does not exist");
      continue;
    }
    AddClaimLocked(nullptr, t->second.requests, what, total, *demand);
  }
  // Extended resources a class serves by name (other than nvidia.com/gpu, counted from the containers).
  for (const auto& [name, amount] : EffectiveRequests(pod)) {
    if (amount <= 0) continue;
    std::string class_name;
    if (name.rfind(kClassResourcePrefix, 0) == 0) {
      class_name = name.substr(kClassResourcePrefix.size());
    } else if (name != kGpuResource) {
      for (const auto& [n, c] : classes_) {
        if (c.extended_resource_name == name) class_name = n;
      }
    }
    if (class_name.empty()) continue;
    DeviceRequest r{name, {DeviceAlternative{name, class_name, {}, false, amount}}};
    std::vector<std::string> problems;
    Charge c = ChargeOfRequestLocked(r, problems);
    for (const std::string& p : problems) demand->problems.push_back("extended resource " + p);
    total.whole += c.whole;
    total.milli += c.milli;
    total.models.insert(c.models.begin(), c.models.end());
    demand->allocated = false;
  }
  if (!pod.extended_resource_claim.empty()) {
    auto claim = claims_.find(NamespacedKey(pod.namespace_, pod.extended_resource_claim));
    if (claim != claims_.end() && claim->second.allocated) ChargeOfAllocationLocked(claim->second, demand->held);
  }
  demand->whole_gpus = total.whole;
  demand->partition_milli = total.milli;
  demand->models.assign(total.models.begin(), total.models.end());
  return demand;
}

size_t GpuInventory::slice_count() const {
  std::lock_guard lock(mu_);
  return slices_.size();
}

size_t GpuInventory::device_count() const {
  std::lock_guard lock(mu_);
  return devices_.size();
}

}  // namespace gangplank::cache::dra
