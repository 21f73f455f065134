#include "cache/feed/plan_seal_key.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace gangplank::cache {

std::shared_ptr<const PlanSeal> ReadPlanSealKey(const std::string& path) {
  if (path.empty()) return nullptr;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the plan seal key file " + path);
  std::string key(std::istreambuf_iterator<char>(in), {});
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  try {
    return std::make_shared<const PlanSeal>(std::move(key));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace gangplank::cache
