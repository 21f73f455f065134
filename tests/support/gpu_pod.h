// The pod the end-to-end fixtures on the real control plane build their gangs from:
// one container asking for `gpus` whole GPUs, in requests and limits alike as the API server requires of
// an extended resource, with 4 CPUs and 16 GiB; empty labels and annotations for the fixture to fill.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gangplank::testing {

inline nlohmann::json GpuPod(const std::string& name, const std::string& ns, const std::string& scheduler, int gpus) {
  const std::string g = std::to_string(gpus);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", nlohmann::json::object()}, {"annotations", nlohmann::json::object()}}},
          {"spec",
           {{"schedulerName", scheduler},
            {"containers", nlohmann::json::array({{{"name", "main"},
                                                   {"image", "trainer"},
                                                   {"resources",
                                                    {{"requests", {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", g}}},
                                                     {"limits", {{"nvidia.com/gpu", g}}}}}}})}}}};
}

}  // namespace gangplank::testing
