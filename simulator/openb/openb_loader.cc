#include "simulator/openb/openb_loader.h"

#include <algorithm>
#include <optional>
#include <set>

namespace gangplank::simulator::openb {
namespace {

// Rejects header names outside `known`; the column is computed from the header text (headers are plain).
void CheckColumns(const CsvTable& table, const std::vector<std::string>& known) {
  int column = 1;
  for (const std::string& h : table.header()) {
    if (std::find(known.begin(), known.end(), h) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ",") + k;
      throw InputError(table.source() + ":1:" + std::to_string(column) + ": unknown column '" + h +
                       "' (expected " + list + ")");
    }
    column += static_cast<int>(h.size()) + 1;
  }
}

std::int64_t NonNegative(const CsvTable& t, size_t row, size_t col) {
  const std::int64_t v = t.Int(row, col);
  if (v < 0) {
    throw InputError(t.Where(row, col) + ": negative value " + std::to_string(v) + " in column '" +
                     t.header()[col] + "'");
  }
  return v;
}

std::vector<std::string> SplitModels(std::string_view spec) {
  std::vector<std::string> models;
  size_t start = 0;
  while (start <= spec.size() && !spec.empty()) {
    size_t end = spec.find('|', start);
    if (end == std::string_view::npos) end = spec.size();
    if (end > start) models.emplace_back(spec.substr(start, end - start));
    start = end + 1;
  }
  return models;
}

}  // namespace

std::vector<engine::NodeSpec> NodesFromTable(const CsvTable& t) {
  CheckColumns(t, {"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  const size_t sn = t.Column("sn"), cpu = t.Column("cpu_milli"), mem = t.Column("memory_mib"),
               gpu = t.Column("gpu"), model = t.Column("model");
  std::vector<engine::NodeSpec> nodes;
  std::set<std::string, std::less<>> names;
  for (size_t r = 0; r < t.rows(); ++r) {
    engine::NodeSpec n;
    n.name = std::string(t.Text(r, sn));
    if (n.name.empty()) throw InputError(t.Where(r, sn) + ": empty node name");
    if (!names.insert(n.name).second) throw InputError(t.Where(r, sn) + ": duplicate node name '" + n.name + "'");
    n.capacity.cpu_milli = NonNegative(t, r, cpu);
    n.capacity.memory_mib = NonNegative(t, r, mem);
    const std::int64_t gpus = NonNegative(t, r, gpu);
    if (gpus > 64) throw InputError(t.Where(r, gpu) + ": " + std::to_string(gpus) + " GPUs on one node is not plausible");
    n.gpu_count = static_cast<int>(gpus);
    n.gpu_model = std::string(t.Text(r, model));
    if (n.gpu_count > 0 && n.gpu_model.empty()) throw InputError(t.Where(r, model) + ": GPU node without a model");
    nodes.push_back(std::move(n));
  }
  return nodes;
}

std::vector<engine::NodeSpec> LoadNodes(const std::string& path) { return NodesFromTable(CsvTable::Load(path)); }

std::vector<OpenbPod> PodsFromTable(const CsvTable& t) {
  // The paper's pod lists differ in their optional columns (the multi-GPU lists have no gpu_spec) and
  // carry informational ones (qos, pod_phase, times) that the replay does not use: only these are read.
  const size_t name = t.Column("name"), cpu = t.Column("cpu_milli"), mem = t.Column("memory_mib"),
               num_gpu = t.Column("num_gpu"), gpu_milli = t.Column("gpu_milli");
  const std::optional<size_t> spec = t.FindColumn("gpu_spec");
  std::vector<OpenbPod> pods;
  for (size_t r = 0; r < t.rows(); ++r) {
    OpenbPod p;
    p.name = std::string(t.Text(r, name));
    engine::PodRequest& q = p.request;
    q.host.cpu_milli = NonNegative(t, r, cpu);
    q.host.memory_mib = NonNegative(t, r, mem);
    const std::int64_t count = NonNegative(t, r, num_gpu);
    const std::int64_t milli = NonNegative(t, r, gpu_milli);
    if (count > 64) throw InputError(t.Where(r, num_gpu) + ": " + std::to_string(count) + " GPUs for one pod is not plausible");
    if (milli > engine::kMilliPerGpu) {
      throw InputError(t.Where(r, gpu_milli) + ": gpu_milli " + std::to_string(milli) + " exceeds one GPU (1000)");
    }
    if (count > 1 && milli < engine::kMilliPerGpu) {
      throw InputError(t.Where(r, gpu_milli) + ": a pod with " + std::to_string(count) +
                       " GPUs must take whole GPUs (gpu_milli 1000), got " + std::to_string(milli));
    }
    if (count > 0 && milli == 0) throw InputError(t.Where(r, gpu_milli) + ": num_gpu > 0 but gpu_milli is 0");
    if (count == 0 && milli > 0) throw InputError(t.Where(r, gpu_milli) + ": gpu_milli > 0 but num_gpu is 0");
    q.gpu_count = static_cast<int>(count);
    q.gpu_milli = static_cast<engine::MilliGpu>(milli);
    if (spec) q.gpu_models = SplitModels(t.Text(r, *spec));
    if (std::string why = engine::ValidateRequest(q); !why.empty()) throw InputError(t.Where(r, name) + ": " + why);
    pods.push_back(std::move(p));
  }
  return pods;
}

std::vector<OpenbPod> LoadPods(const std::string& path) { return PodsFromTable(CsvTable::Load(path)); }

}  // namespace gangplank::simulator::openb
