// Helpers shared by the models/ tests.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "models/ops.h"
#include "models/parameters.h"
#include "models/zoo.h"

namespace zs::models::test_util {

// The zoo entry `name`; a failed lookup fails the test (and aborts on use).
inline ModelSpec zoo(std::string_view name) {
  Result<ModelSpec> r = zoo_model(name);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  return std::move(r).value();
}

// The op called `name`. REQUIRES: `ops` outlives the returned reference.
inline const Op& find_op(const std::vector<Op>& ops, std::string_view name) {
  for (const Op& op : ops) {
    if (op.name == name) return op;
  }
  ADD_FAILURE() << "no op " << name;
  return ops.front();
}

// The parameter called `name`. REQUIRES: `params` outlives the returned reference.
inline const ParamTensor& find_param(const std::vector<ParamTensor>& params,
                                     std::string_view name) {
  for (const ParamTensor& p : params) {
    if (p.name == name) return p;
  }
  ADD_FAILURE() << "no parameter " << name;
  return params.front();
}

}  // namespace zs::models::test_util
