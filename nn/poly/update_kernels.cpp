#include "nn/poly/update_kernels.h"

#include <type_traits>
#include <vector>

#include "nn/poly/layer_kernels.h"
#include "polyhedral/frontend/builder.h"
#include "polyhedral/runtime/jit.h"

namespace pz::nn {

namespace {

using poly::KernelWriter;
using poly::ScopBuilder;

// One sweep over i < N of `statements` (in order, each on element i), kept as written: the
// statements of an element read what the ones before wrote.
KernelWriter::Nest sweep(std::vector<std::string> statements) {
  return [statements = std::move(statements)](ScopBuilder& b) {
    b.for_("i", "0", "N");
    for (const std::string& s : statements) b.stmt(s);
    b.end();
  };
}

std::vector<KernelWriter> update_kernels() {
  const std::vector<std::string> adam_moments = {"p[i] = p[i] * h[0]", "d[i] = g[i] + h[1] * p[i]",
                                                 "m[i] = m[i] * h[2] + d[i] * h[3]", "v[i] = v[i] * h[4] + d[i] * d[i] * h[5]"};
  std::vector<std::string> amsgrad = adam_moments;
  amsgrad.push_back("vmax[i] = fmax(vmax[i], v[i])");
  amsgrad.push_back("p[i] = p[i] + m[i] / (sqrt(vmax[i]) / h[6] + h[7]) * h[8]");
  std::vector<std::string> adam = adam_moments;
  adam.push_back("p[i] = p[i] + m[i] / (sqrt(v[i]) / h[6] + h[7]) * h[8]");
  const auto as_written = KernelWriter::Order::kAsWritten;

  std::vector<KernelWriter> k;
  k.emplace_back("pz_update_sgd_momentum",
                 std::vector<poly::KernelArgument>{{"h", ""}, {"p", "", true}, {"g", ""}, {"b", "", true}, {"d", "", true}});
  k.back().nest(sweep({"d[i] = g[i] + h[0] * p[i]", "b[i] = b[i] * h[1] + d[i] * h[2]", "d[i] = d[i] * h[3] + b[i] * h[4]",
                       "p[i] = p[i] + d[i] * h[5]"}),
                as_written);
  k.emplace_back("pz_update_sgd", std::vector<poly::KernelArgument>{{"h", ""}, {"p", "", true}, {"g", ""}});
  k.back().nest(sweep({"p[i] = p[i] + (g[i] + h[0] * p[i]) * h[1]"}), as_written);
  k.emplace_back("pz_update_adam", std::vector<poly::KernelArgument>{
                                       {"h", ""}, {"p", "", true}, {"g", ""}, {"m", "", true}, {"v", "", true}, {"d", "", true}});
  k.back().nest(sweep(adam), as_written);
  k.emplace_back("pz_update_adam_amsgrad",
                 std::vector<poly::KernelArgument>{
                     {"h", ""}, {"p", "", true}, {"g", ""}, {"m", "", true}, {"v", "", true}, {"vmax", "", true}, {"d", "", true}});
  k.back().nest(sweep(amsgrad), as_written);
  k.emplace_back("pz_update_sum_of_squares", std::vector<poly::KernelArgument>{{"g", ""}, {"h", "", true}});
  k.back().nest([](ScopBuilder& b) { b.stmt("h[0] = 0.0f").for_("i", "0", "N").stmt("h[0] += g[i] * g[i]").end(); });
  k.emplace_back("pz_update_scale", std::vector<poly::KernelArgument>{{"h", ""}, {"g", "", true}});
  k.back().nest(sweep({"g[i] = g[i] * h[0]"}));
  return k;
}

struct LoadedUpdateKernels {
  std::shared_ptr<poly::JitModule> module;
  optim::UpdateKernels kernels;
};

}  // namespace

std::shared_ptr<const optim::UpdateKernels> compile_update_kernels(const std::string& cache_dir) {
  auto loaded = std::make_shared<LoadedUpdateKernels>();
  loaded->module = compile_kernels(update_kernels(), "optimiser updates", cache_dir);
  optim::UpdateKernels& k = loaded->kernels;
  const poly::JitModule& m = *loaded->module;
  k.sgd_momentum = m.function<std::remove_pointer_t<decltype(k.sgd_momentum)>>("pz_update_sgd_momentum");
  k.sgd = m.function<std::remove_pointer_t<decltype(k.sgd)>>("pz_update_sgd");
  k.adam = m.function<std::remove_pointer_t<decltype(k.adam)>>("pz_update_adam");
  k.adam_amsgrad = m.function<std::remove_pointer_t<decltype(k.adam_amsgrad)>>("pz_update_adam_amsgrad");
  k.sum_of_squares = m.function<std::remove_pointer_t<decltype(k.sum_of_squares)>>("pz_update_sum_of_squares");
  k.scale = m.function<std::remove_pointer_t<decltype(k.scale)>>("pz_update_scale");
  return {loaded, &loaded->kernels};  // aliasing: the module lives as long as the pointer
}

}  // namespace pz::nn
