// Exported C functions whose bodies are polyhedral programs: each function takes the batch
// `int N` and float pointers, and runs one or more loop nests, each described with the
// ScopBuilder in its plain mathematical form and sent alone through polyc's pipeline
// (optimize_scop), so that a contraction is a reduction chain register_blocking.h
// recognises. The clients are the generated kernels of nn/ (training) and recsys/.
//
//   KernelWriter("pz_scale", {{"x", "[16]"}, {"y", "[16]", true}})
//       .nest([](ScopBuilder& b) {
//         b.for_("n", "0", "N").for_("i", "0", "16").stmt("y[n][i] = 2.0f * x[n][i]").end().end();
//       })
//       .source(report);
//
// gives `void pz_scale(int N, const float* restrict x_, float* restrict y_)` whose body views
// x_ and y_ as `float (*)[16]` and runs polyc's code for the nest (double with
// KernelWriterOptions::element). N ≥ 1 is assumed: with
// N < 1 the function does nothing (every nest runs under `if (N >= 1)`, so that a reduction
// over the batch is a register-blocked chain).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "polyhedral/report.h"

namespace pz::poly {

class ScopBuilder;

// A pointer argument of a kernel: its C name and, for a multi-dimensional array, the sizes
// of every dimension after the first ("[26][16]"; empty: a plain float*).
//
// A view (`view_of` set) is no parameter: it is an array placed inside the written argument
// `view_of`, `offset` elements in (a C expression, which may use N), so that one workspace
// holds a kernel's intermediate arrays. The caller sizes the workspace; views of one
// workspace must not overlap (they are declared restrict, as the parameters are).
struct KernelArgument {
  std::string name, rows;
  bool write = false;
  std::string view_of = {}, offset = {};
};

struct KernelReport {
  std::string name;      // the exported function
  std::string schedule;  // polyc's schedule origin per loop nest, joined by "; "
  std::vector<ScopReport> nests;  // polyc's whole report of each loop nest
};

struct KernelWriterOptions {
  // N as a constant (for analysis: footprints and data movement need concrete sizes);
  // unset, N is the runtime argument.
  std::optional<long long> batch;
  bool data_movement = false;  // polyc's footprints and data movement in the reports
  // The arrays' element type, "float" or "double" (the same nests in double precision: for
  // finite-difference checks of gradient kernels). Literals and <tgmath.h> calls in the
  // statements follow their arguments' type.
  std::string element = "float";
  // Contractions (matmul_packing.h) as packed BLIS loops where they are large enough (a
  // run-time test on N), register-blocked chains otherwise: for operands that overflow the
  // caches, which a register block alone sweeps once per block of outputs. Their left
  // operands are read in place where they can be (MatmulPackingOptions::left_in_place).
  bool pack_contractions = false;
};

class KernelWriter {
 public:
  KernelWriter(std::string name, std::vector<KernelArgument> arguments);

  // How a nest's loops are ordered before polyc's passes (loop order, tiles, marks).
  enum class Order {
    kScheduled,  // isl's scheduler (the default)
    // The loops as described, neither rescheduled nor skewed into time tiles: for a nest
    // written as one sweep on purpose (a fusion the caller weighed), which isl would
    // distribute into one nest per statement.
    kAsWritten,
  };

  // Declares the parameter N and every argument as an array before `describe` runs.
  using Nest = std::function<void(ScopBuilder&)>;
  KernelWriter& nest(Nest describe, Order order = Order::kScheduled);

  const std::string& name() const { return name_; }
  // The C definition, every nest optimised by polyc (register blocking and `omp simd`
  // vectorisation on, no OpenMP threads). Throws what polyc throws for a malformed nest,
  // std::invalid_argument for an element type other than float and double.
  std::string source(KernelReport& report, const KernelWriterOptions& options = {}) const;

 private:
  std::string name_;
  std::vector<KernelArgument> arguments_;
  struct DescribedNest {
    Nest describe;
    Order order;
  };
  std::vector<DescribedNest> nests_;
};

}  // namespace pz::poly
