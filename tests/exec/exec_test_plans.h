// Test-only: the tiny-gpt Plans and training text that the executor tests on the CPU
// (tests/exec) and on CUDA (tests/exec_cuda) share.
#pragma once

#include <string>

#include "exec/model_runner.h"
#include "models/hf_config.h"
#include "tests/plan/plan_test_util.h"

namespace zs::exec::testing {

// A small English text: byte-level tokens the tiny model can learn.
inline std::string training_text() {
  std::string t;
  for (int i = 0; i < 12; ++i) {
    t += "DeepSpeed users tune ds_config files by trial and error on expensive clusters. "
         "zerosim predicts what a config will do before it runs. ";
  }
  return t;
}

// The plan (and the checked config) of the config text `cfg` for tiny-gpt without dropout,
// sequence 32, on `gpus` H100s.
inline plan::PlannedText tiny_gpt_plan(const std::string& cfg, int gpus = 1,
                                       bool checkpointing = false) {
  plan::PlanSetup setup;
  setup.spec = without_dropout(*models::resolve_model("tiny-gpt"));
  setup.gpu = "h100-80gb-sxm";
  setup.gpus_per_node = gpus;
  setup.seq_len = 32;
  setup.checkpointing = checkpointing;
  return plan::plan_text(cfg, setup);
}

}  // namespace zs::exec::testing
