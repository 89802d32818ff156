// One isl context per compilation (isl_ctx is not thread-safe: one per thread).
//
// It owns the raw isl_ctx; every isl object made from it must die first, so a Scop and
// everything derived from it are declared after the IslContext that feeds them. Errors
// become C++ exceptions (isl::exception) through isl's C++ bindings, never stderr noise.
#pragma once

#include <isl/cpp.h>

#include <sstream>
#include <string>
#include <vector>

namespace pz::poly {

// isl's text form of any isl object ("[N] -> { S0[i] : 0 <= i < N }").
template <class T>
std::string isl_str(const T& obj) {
  std::ostringstream out;
  out << obj;
  return out.str();
}

inline std::vector<isl::map> maps_of(const isl::union_map& m) {
  std::vector<isl::map> out;
  m.foreach_map([&](isl::map x) { out.push_back(x); });
  return out;
}

inline std::vector<isl::set> sets_of(const isl::union_set& s) {
  std::vector<isl::set> out;
  s.foreach_set([&](isl::set x) { out.push_back(x); });
  return out;
}

// The statement instances that reach `node` (not wrapped by isl's C++ bindings in 0.25).
inline isl::union_set node_domain(const isl::schedule_node& node) {
  return isl::manage(isl_schedule_node_get_domain(node.get()));
}

class IslContext {
 public:
  IslContext();
  ~IslContext();
  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;

  isl::ctx ctx() const { return isl::ctx(raw_); }
  isl_ctx* raw() const { return raw_; }

  // Bounds the work of the next isl computations (0 = unlimited); a computation over the
  // budget fails with isl_error_quota, which callers turn into a fallback.
  void set_budget(unsigned long operations);
  void reset_budget();

 private:
  isl_ctx* raw_;
};

// RAII: a budget of isl operations for the computations inside one scope (0: the enclosing
// budget, if any, stays in force), which start with no error set. Scopes nest: an inner budget is capped by the enclosing
// one, and on exit the enclosing budget is in force again with its count restarted (isl
// keeps a single counter). A quota error caused by the enclosing budget (the inner one was
// capped by it) stays set for the enclosing scope to see; one caused by the inner budget
// alone is the inner computation's to handle and is cleared.
class IslBudgetScope {
 public:
  IslBudgetScope(isl_ctx* ctx, unsigned long operations);
  IslBudgetScope(IslContext& ctx, unsigned long operations) : IslBudgetScope(ctx.raw(), operations) {}
  ~IslBudgetScope();
  IslBudgetScope(const IslBudgetScope&) = delete;
  IslBudgetScope& operator=(const IslBudgetScope&) = delete;

  // True once a computation in this scope ran out of operations.
  bool exceeded() const;

 private:
  isl_ctx* ctx_;
  unsigned long enclosing_;  // the enclosing budget (0: none)
  bool capped_;              // this scope's budget is the enclosing one's
  isl_error enclosing_error_;
};

}  // namespace pz::poly
