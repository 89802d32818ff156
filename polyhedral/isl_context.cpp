#include "polyhedral/isl_context.h"

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

}  // namespace pz::poly
