#include "exec/activation_ledger.h"

#include "common/check.h"

namespace zs::exec {

ActivationLedger::ActivationLedger(const std::vector<models::Op>& ops) : e_(ops.size()) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    e_[i].name = ops[i].name;
    for (int in : ops[i].inputs) {
      if (in < 0) continue;  // the batch's tokens or targets
      e_[i].inputs.push_back(in);
      ++at(in).readers;
      at(in).last_reader = static_cast<int>(i);
    }
  }
}

const ActivationLedger::Entry& ActivationLedger::at(int i) const {
  ZS_CHECK(i >= 0 && static_cast<std::size_t>(i) < e_.size());
  return e_[static_cast<std::size_t>(i)];
}

ActivationLedger::Entry& ActivationLedger::at(int i) {
  ZS_CHECK(i >= 0 && static_cast<std::size_t>(i) < e_.size());
  return e_[static_cast<std::size_t>(i)];
}

void ActivationLedger::check_forward(int i) const {
  for (int in : at(i).inputs) ZS_CHECK_MSG(at(in).out_live, at(i).name.c_str());
}

void ActivationLedger::forwarded(int i, bool recompute) {
  Entry& s = at(i);
  s.out_live = true;
  s.saved_live = true;
  if (!recompute) s.pending = s.readers;
}

bool ActivationLedger::drop(int i, int last) {
  Entry& s = at(i);
  s.saved_live = false;
  if (s.last_reader > last) return false;
  s.out_live = false;
  return true;
}

void ActivationLedger::check_backward(int i) const {
  const Entry& s = at(i);
  const char* name = s.name.c_str();
  ZS_CHECK_MSG(s.out_live && s.saved_live, name);  // dropped and not recomputed
  ZS_CHECK_MSG(s.pending == 0, name);              // a reader's backward has not run yet
  for (int in : s.inputs) ZS_CHECK_MSG(at(in).out_live, name);
}

bool ActivationLedger::take_gradient(int input) {
  Entry& s = at(input);
  ZS_CHECK_MSG(s.pending > 0, "a reader ran backward twice for one forward");
  const bool first = s.pending == s.readers;
  --s.pending;
  return first;
}

void ActivationLedger::release(int i) {
  Entry& s = at(i);
  s.out_live = false;
  s.saved_live = false;
}

}  // namespace zs::exec
