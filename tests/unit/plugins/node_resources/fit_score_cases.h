// The table shape of the NodeResourcesFit scoring tests (least_allocated_test.cc,
// most_allocated_test.cc, requested_to_capacity_ratio_test.cc, fit_score_test.cc): each case
// builds the plugin from config::NodeResourcesFitArgs and checks the exact scores of every
// node, with and without PreScore.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/plugin_config/args.h"
#include "tests/unit/plugins/node_resources/test_util.h"

namespace stowage::plugins::node_resources::testutil {

using stowage::testing::BuildNode;
using stowage::testing::BuildPod;

inline constexpr std::string_view kLeast = config::kLeastAllocated;
inline constexpr std::string_view kMost = config::kMostAllocated;
inline constexpr std::string_view kRatio = config::kRequestedToCapacityRatio;

inline const std::string kXyz = "abc.com/xyz";

inline std::vector<config::ResourceSpec> CpuMem() { return {{"cpu", 1}, {"memory", 1}}; }
inline std::vector<config::ResourceSpec> CpuMemXyz() {
  return {{"cpu", 1}, {"memory", 1}, {kXyz, 1}};
}

inline config::NodeResourcesFitArgs Args(std::string_view type,
                                         std::vector<config::ResourceSpec> res,
                                         std::vector<config::UtilizationShapePoint> shape = {}) {
  config::ScoringStrategy s;
  s.type = std::string(type);
  s.resources = std::move(res);
  if (type == config::kRequestedToCapacityRatio) {
    s.requested_to_capacity_ratio = config::RequestedToCapacityRatioParam{std::move(shape)};
  }
  return config::NodeResourcesFitArgs{{}, {}, std::move(s)};
}

inline api::NodePtr Node(const char* name, const char* cpu, const char* mem,
                         std::optional<std::pair<std::string, std::string>> extra = std::nullopt) {
  stowage::testing::ResourceMap capacity = {{"cpu", cpu}, {"memory", mem}};
  if (extra) capacity.push_back(*extra);
  return BuildNode().Name(name).Capacity(capacity).Obj();
}

inline api::PodPtr Existing(const char* node, const char* cpu, const char* mem) {
  return BuildPod()
      .Name(std::string("e-") + node + cpu + mem)
      .Node(node)
      .Req({{"cpu", cpu}, {"memory", mem}})
      .Obj();
}

inline api::PodPtr Pod2(const char* cpu1, const char* mem1, const char* cpu2, const char* mem2) {
  return BuildPod()
      .Name("p")
      .Req({{"cpu", cpu1}, {"memory", mem1}})
      .Req({{"cpu", cpu2}, {"memory", mem2}})
      .Obj();
}

struct ScoreCase {
  std::string name;
  config::NodeResourcesFitArgs args;
  api::PodPtr pod;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> existing;
  std::vector<int64_t> want;
};
inline void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }

// Its TEST_P is in fit_score_test.cc; the other files only instantiate it.
class FitScoreTest : public ::testing::TestWithParam<ScoreCase> {};

inline const std::vector<config::UtilizationShapePoint> kLeastShape = {{0, 10}, {100, 0}};
inline const std::vector<config::UtilizationShapePoint> kMostShape = {{0, 0}, {100, 10}};
inline const std::vector<config::UtilizationShapePoint> kBinPack = {{0, 0}, {100, 1}};
inline const std::vector<std::pair<std::string, int64_t>> kFoo8 = {{"intel.com/foo", 8}};
inline const std::vector<std::pair<std::string, int64_t>> kFoo4 = {{"intel.com/foo", 4}};
inline const std::vector<std::pair<std::string, int64_t>> kFoo8Bar4 = {{"intel.com/foo", 8},
                                                                       {"intel.com/bar", 4}};
inline const std::vector<std::pair<std::string, int64_t>> kFoo4Bar8 = {{"intel.com/foo", 4},
                                                                       {"intel.com/bar", 8}};
inline constexpr int64_t kTenThousandMi = 10000LL * 1024 * 1024;

inline std::string CaseName(const ::testing::TestParamInfo<ScoreCase>& info) {
  return "Case" + std::to_string(info.index);
}

}  // namespace stowage::plugins::node_resources::testutil
