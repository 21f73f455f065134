#include "operator/admission/runtime_predictions.h"

#include <cmath>

namespace gangplank::op {
namespace {

std::optional<double> PredictedRuntime(const RuntimeBook& book, const std::string& key, const engine::KeyChain& chain,
                                       double quantile) {
  if (auto b = book.backfills.find(key); b != book.backfills.end() && b->second.overran) return std::nullopt;
  const std::optional<engine::RuntimePrediction> p = book.predictor->Quantile(chain, quantile);
  return p ? std::optional<double>(p->seconds) : std::nullopt;
}

}  // namespace

void PredictEntries(RuntimeBook& book, const Gang& gang, GangEntries& entries, double now) {
  if (!book.predictor) return;
  if (entries.waiting) {
    const engine::GangRequest& g = entries.waiting->request;
    const engine::KeyChain& chain = book.ChainOf(gang, g.queue, engine::GangGpus(g));
    entries.waiting->predicted_runtime = PredictedRuntime(book, gang.key, chain, book.quantile);
  }
  if (entries.running) {
    if (auto b = book.backfills.find(gang.key); b != book.backfills.end() && !b->second.overran) {
      entries.running->leave_by = b->second.leave_by;
    }
    if (const auto chain = book.chains.find(gang.key); chain != book.chains.end()) {
      entries.running->predicted_end = book.predictor->PredictedEnd(chain->second, entries.running->start, now);
    }
  }
}

double LearnEnded(RuntimeBook& book, const std::string& key, const engine::RunningGang& ran, double now) {
  if (!book.predictor || ran.ungoverned) return 0;
  const double seconds = now - ran.start;
  if (!(seconds > 0)) return 0;
  auto chain = book.chains.find(key);
  if (chain == book.chains.end()) {
    // Admitted before this leader knew it waiting: its queue, namespace and size still key it.
    engine::RuntimeKey k{ran.queue, key.substr(0, key.find('/')), static_cast<int>(std::lround(ran.Gpus())), ""};
    chain = book.chains.emplace(key, book.predictor->Chain(k)).first;
  }
  book.predictor->Observe(chain->second, seconds);
  book.learnt = true;
  return seconds;
}

void Repredict(RuntimeBook& book, AdmissionBook& admission, double now, bool full) {
  if (!book.predictor) return;
  engine::AdmissionInput& input = admission.input();
  if (book.learnt) {
    for (engine::WaitingGang& w : input.waiting) {
      const auto chain = book.chains.find(w.request.name);
      if (chain != book.chains.end()) w.predicted_runtime = PredictedRuntime(book, w.request.name, chain->second, book.quantile);
    }
    book.learnt = false;
  }
  if (!full) return;
  for (engine::RunningGang& r : input.running) {
    const auto chain = book.chains.find(r.name);
    if (chain == book.chains.end()) continue;
    r.predicted_end = book.predictor->PredictedEnd(chain->second, r.start, now);
  }
}

}  // namespace gangplank::op
