#include "polyhedral/ir/isl_context.h"

#include <isl/options.h>

namespace pz::poly {

IslContext::IslContext() : raw_(isl_ctx_alloc()) {
  isl_options_set_on_error(raw_, ISL_ON_ERROR_CONTINUE);
}

IslContext::~IslContext() { isl_ctx_free(raw_); }

void IslContext::set_budget(unsigned long operations) {
  isl_ctx_reset_operations(raw_);
  isl_ctx_set_max_operations(raw_, operations);
}

void IslContext::reset_budget() {
  isl_ctx_set_max_operations(raw_, 0);
  isl_ctx_reset_operations(raw_);
  isl_ctx_reset_error(raw_);
}

IslBudgetScope::IslBudgetScope(isl_ctx* ctx, unsigned long operations)
    : ctx_(ctx),
      enclosing_(isl_ctx_get_max_operations(ctx)),
      capped_(enclosing_ != 0 && (operations == 0 || operations >= enclosing_)),
      enclosing_error_(isl_ctx_last_error(ctx)) {
  isl_ctx_reset_operations(ctx_);
  isl_ctx_reset_error(ctx_);
  isl_ctx_set_max_operations(ctx_, capped_ ? enclosing_ : operations);
}

IslBudgetScope::~IslBudgetScope() {
  const bool enclosing_exceeded = enclosing_error_ == isl_error_quota || (capped_ && exceeded());
  isl_ctx_set_max_operations(ctx_, enclosing_);
  isl_ctx_reset_operations(ctx_);
  isl_ctx_reset_error(ctx_);
  if (enclosing_exceeded) isl_ctx_set_error(ctx_, isl_error_quota);
}

bool IslBudgetScope::exceeded() const { return isl_ctx_last_error(ctx_) == isl_error_quota; }

}  // namespace pz::poly
