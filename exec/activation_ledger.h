// ActivationLedger: which of a model's op activations are live in a micro-step, and in what
// order the ops' forward, backward and activation-checkpointing drops may run. The CPU and CUDA
// model runners (exec/model_runner.h, exec/cuda/cuda_model_runner.h) keep the tensors; both
// keep this one account of them, so the two backends obey the same rules:
// - An op's output and saved tensors are live from its forward (or recomputation) until
//   checkpointing drops them or, on the CUDA runner, its backward releases them.
// - A forward starts the op's backward account: every reader of its output must run its own
//   backward before the op's (a recomputation leaves the account as it is).
// - The first reader whose backward runs writes the output's gradient; later readers add to it.
// - A drop inside the checkpoint ending at op `last` kills an op's saved tensors, and its
//   output unless an op after `last` reads it (that output is the next checkpoint's input).
// Breaking an order is a bug in the caller: it aborts, naming the op.
#pragma once

#include <string>
#include <vector>

#include "models/ops.h"

namespace zs::exec {

class ActivationLedger {
 public:
  ActivationLedger() = default;
  // The ops of models::forward_ops (their inputs and names); nothing is live.
  explicit ActivationLedger(const std::vector<models::Op>& ops);

  // REQUIRES for every op index i below: 0 <= i < the number of ops.

  // Aborts unless every input of op i is live.
  void check_forward(int i) const;
  // Op i ran forward (recompute: again, for activation checkpointing).
  void forwarded(int i, bool recompute);
  // Checkpointing drops op i of the checkpoint that ends at op `last`; returns whether its
  // output died too (no op after `last` reads it).
  bool drop(int i, int last);
  // Aborts unless op i may run backward: its output and saved tensors live, every reader's
  // backward run since its forward, every input live.
  void check_backward(int i) const;
  // A reader of op `input` runs its backward and sends it a gradient: true for the first since
  // input's forward (it overwrites), false for later ones (they add). Aborts when more readers
  // send than read it.
  bool take_gradient(int input);
  // Op i's tensors were freed after its backward.
  void release(int i);

  bool out_live(int i) const { return at(i).out_live; }
  bool saved_live(int i) const { return at(i).saved_live; }
  int readers(int i) const { return at(i).readers; }

 private:
  struct Entry {
    std::string name;
    std::vector<int> inputs;  // ops whose outputs op reads (the batch's tokens/targets omitted)
    int readers = 0;          // ops whose inputs name this op
    int pending = 0;          // readers whose backward has not run since this op's forward
    int last_reader = -1;     // the largest index of a reader (-1: none)
    bool out_live = false;    // the output holds this micro-step's forward values
    bool saved_live = false;  // the saved tensors do
  };
  const Entry& at(int i) const;
  Entry& at(int i);

  std::vector<Entry> e_;
};

}  // namespace zs::exec
