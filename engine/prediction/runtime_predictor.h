// How long a gang will run, learnt from how long gangs like it ran (Tiresias, 3Sigma and the Helios
// trace study: a job's runtime follows its own history, the same queue, size and name). Pure and
// deterministic: the caller feeds it the runtimes of gangs that ended, in the order they ended, and it
// never sees the future.
//
// Samples are kept per key at several levels, most specific first: job class (within its namespace)
// with GPU count, job class, queue with namespace and GPU count, queue with GPU count, queue, GPU
// count, everything. A
// prediction reads the first level holding at least `min_samples`, so a new class or queue borrows its
// size's history until it has its own. Each level keeps its latest `window` samples (habits change),
// sorted, so a quantile costs one index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::engine {

// What a gang is known by. Empty strings (and gpus 0) leave their levels out.
struct RuntimeKey {
  std::string queue;
  std::string namespace_;
  int gpus = 0;
  std::string job_class;  // gangplank.io/job-class, or the owner's name stem.
};

struct PredictorConfig {
  int min_samples = 5;  // A level answers only with at least this many samples.
  int window = 64;      // Latest samples kept per level.
};

// The levels a key is read at, most specific first; each names one sample window of a predictor.
struct KeyChain {
  std::vector<int> levels;
};

struct RuntimePrediction {
  double seconds = 0;
  std::string level;  // The level that answered, e.g. "queue=vc1,gpus=8".
  int samples = 0;    // How many samples it held.
};

class RuntimePredictor {
 public:
  explicit RuntimePredictor(PredictorConfig config = {}) : config_(config) {}

  // The levels of `key`, created empty when new. Keep it: reading through a chain costs no lookups.
  KeyChain Chain(const RuntimeKey& key);
  // The levels of `key` that exist, creating none: for a question that must not grow the predictor
  // (a dry run's hypothetical gang).
  KeyChain FindChain(const RuntimeKey& key) const;

  // A gang of this chain ran `seconds` (from its start to its end, all its runs together).
  void Observe(const KeyChain& chain, double seconds);

  // The `quantile` (0..1) of the runtimes at the first level with enough samples; none when no level has.
  std::optional<RuntimePrediction> Quantile(const KeyChain& chain, double quantile) const;

  // How much longer a gang that has run `elapsed` seconds is expected to run: the median of the
  // runtimes longer than `elapsed` at the first level with enough of them, less `elapsed`. None when no
  // level has enough samples longer than it (it has outlived its history).
  std::optional<double> Remaining(const KeyChain& chain, double elapsed) const;
  // When a gang of the chain that started at `start` is expected to end, at `now`: now + Remaining.
  std::optional<double> PredictedEnd(const KeyChain& chain, double start, double now) const;

  // The sample windows by level name, oldest sample first, the most recently fed level first and at
  // most `max_levels` of them: what the operator keeps in a GPUPool's status so that a new leader
  // predicts as the old one did. Restore takes them back (keeping their recency order).
  std::vector<std::pair<std::string, std::vector<double>>> Export(std::size_t max_levels = SIZE_MAX) const;
  void Restore(const std::vector<std::pair<std::string, std::vector<double>>>& windows);

  const PredictorConfig& config() const { return config_; }
  std::size_t levels() const { return windows_.size(); }

 private:
  struct Window {
    std::string name;
    std::deque<double> by_age;   // Oldest first.
    std::vector<double> sorted;  // The same samples, ascending.
    std::uint64_t fed = 0;       // When it last took a sample (a counter), for Export's order.
  };

  int LevelOf(const std::string& name);
  void Add(Window& w, double seconds);
  // The first level of the chain whose samples from `from` up number at least min_samples.
  const Window* Answering(const KeyChain& chain, double from) const;

  PredictorConfig config_;
  std::vector<Window> windows_;
  std::map<std::string, int, std::less<>> by_name_;
  std::uint64_t feeds_ = 0;
};

// Names the levels of a key, most specific first (see the file comment).
std::vector<std::string> LevelNames(const RuntimeKey& key);

}  // namespace gangplank::engine
