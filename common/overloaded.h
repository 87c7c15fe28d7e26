// Overloaded{lambdas...}: one callable made of several, for std::visit over a variant with one
// lambda per alternative. Give each lambda its alternative's exact type (no `auto` catch-all):
// then a new alternative that one visit does not handle fails to compile there.
#pragma once

namespace zs {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace zs
