// The one error type for bad input: a request body or Kubernetes object that cannot be understood.
// The message names where the problem is (a field path such as Pod.spec.containers[0].resources) and
// what is wrong, so the HTTP layer can answer 400 with it verbatim.
#pragma once

#include <stdexcept>
#include <string>

namespace gangplank::cache {

class DecodeError : public std::runtime_error {
 public:
  DecodeError(std::string path, const std::string& problem)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem), path_(std::move(path)),
        problem_(problem) {}

  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

  // The same error one level further out, e.g. "spec" + ".containers[0]" -> "spec.containers[0]".
  DecodeError Within(const std::string& outer) const {
    if (path_.empty()) return DecodeError(outer, problem_);
    return DecodeError(path_.front() == '[' ? outer + path_ : outer + "." + path_, problem_);
  }

 private:
  std::string path_;
  std::string problem_;
};

}  // namespace gangplank::cache
