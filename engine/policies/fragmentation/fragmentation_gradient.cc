#include "engine/policies/fragmentation/fragmentation_gradient.h"

#include <array>

namespace gangplank::engine::policies {

FragmentationGradientPolicy::FragmentationGradientPolicy(std::string name, std::vector<TaskType> tasks,
                                                         const MeasureOptions& measure, GradientRank rank,
                                                         ClusterBias bias)
    : name_(std::move(name)),
      model_(std::move(tasks), measure),
      rank_(std::move(rank)),
      bias_(std::move(bias)) {}

int FragmentationGradientPolicy::NodeModel(const Cluster& cluster, NodeId node) {
  if (node_models_.size() < static_cast<size_t>(cluster.size())) node_models_.resize(static_cast<size_t>(cluster.size()), -1);
  int& m = node_models_[static_cast<size_t>(node)];
  if (m < 0) m = model_.ModelIndex(cluster.spec(node).gpu_model);
  return m;
}

const ScoreMemo::Entry& FragmentationGradientPolicy::Evaluate(const Cluster& cluster, NodeId node,
                                                              const PodRequest& request) {
  ScoreMemo::Entry& slot = memo_.Slot(cluster, node, request);
  if (ScoreMemo::Fresh(slot, cluster, node)) return slot;

  const NodeState& st = cluster.state(node);
  const int model = NodeModel(cluster, node);
  const double before = model_.Cached(NodeView{st.free.cpu_milli, st.free.memory_mib, st.gpu_free, model});

  const size_t n = st.gpu_free.size();
  std::vector<MilliGpu> after_gpus(st.gpu_free);
  NodeView after{st.free.cpu_milli - request.host.cpu_milli, st.free.memory_mib - request.host.memory_mib,
                 after_gpus, model};
  double best_score = 0;
  int best_gpu = -1;
  if (request.IsSharing()) {
    for (size_t g = 0; g < n; ++g) {
      const MilliGpu free = st.gpu_free[g];
      if (free < request.gpu_milli) continue;
      // GPUs with equal free capacity are interchangeable: the first one stands for all.
      bool seen = false;
      for (size_t h = 0; h < g && !seen; ++h) seen = st.gpu_free[h] == free;
      if (seen) continue;
      after_gpus[g] -= request.gpu_milli;
      const double s = rank_({before - model_.Cached(after), cluster, node, request, static_cast<int>(g)});
      after_gpus[g] += request.gpu_milli;
      if (best_gpu < 0 || s > best_score) {
        best_score = s;
        best_gpu = static_cast<int>(g);
      }
    }
  } else {
    if (request.WantsGpu()) {
      int left = request.gpu_count;
      for (size_t g = 0; g < n && left > 0; ++g) {
        if (after_gpus[g] == kMilliPerGpu) {
          after_gpus[g] = 0;
          --left;
        }
      }
    }
    best_score = rank_({before - model_.Cached(after), cluster, node, request, -1});
  }
  ScoreMemo::Fill(slot, cluster, node, best_score, best_gpu);
  return slot;
}

double FragmentationGradientPolicy::FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const double score = Evaluate(cluster, node, request).score;
  return bias_ ? score + bias_(cluster, node, request) : score;
}

void FragmentationGradientPolicy::FastScores(const Cluster& cluster, const std::vector<NodeId>& nodes,
                                             const PodRequest& request, std::vector<double>& scores) {
  scores.resize(nodes.size());
  // One request shape throughout: Evaluate adds no row, so this reference stays valid.
  const std::vector<ScoreMemo::Entry>& row = memo_.Row(cluster, request);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ScoreMemo::Entry& memo = row[static_cast<size_t>(nodes[i])];
    scores[i] = ScoreMemo::Fresh(memo, cluster, nodes[i]) ? memo.score : Evaluate(cluster, nodes[i], request).score;
  }
  if (!bias_) return;
  for (size_t i = 0; i < nodes.size(); ++i) scores[i] += bias_(cluster, nodes[i], request);
}

NodeScore FragmentationGradientPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const ScoreMemo::Entry& e = Evaluate(cluster, node, request);
  NodeScore s{bias_ ? e.score + bias_(cluster, node, request) : e.score, {}};
  if (request.IsSharing()) {
    if (e.gpu >= 0) s.gpus.push_back(e.gpu);
  } else {
    s.gpus = DefaultGpuChoice(cluster.state(node), request);
  }
  return s;
}

}  // namespace gangplank::engine::policies
