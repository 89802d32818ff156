#include "polyhedral/codegen/kernel_writer.h"

#include "polyhedral/frontend/builder.h"
#include "polyhedral/ir/isl_context.h"
#include "polyhedral/polyc.h"

#include <stdexcept>

namespace pz::poly {

KernelWriter::KernelWriter(std::string name, std::vector<KernelArgument> arguments)
    : name_(std::move(name)), arguments_(std::move(arguments)) {}

KernelWriter& KernelWriter::nest(Nest describe, Order order) {
  nests_.push_back({std::move(describe), order});
  return *this;
}

std::string KernelWriter::source(KernelReport& report, const KernelWriterOptions& writer_options) const {
  const std::string& element = writer_options.element;
  if (element != "float" && element != "double")
    throw std::invalid_argument("kernel " + name_ + ": element type '" + element + "' is not float or double");
  std::string code = "void " + name_ + "(int N";
  for (const KernelArgument& a : arguments_)
    if (a.view_of.empty()) code += ", " + (a.write ? element : "const " + element) + "* restrict " + a.name + "_";
  code += ") {\n";
  for (const KernelArgument& a : arguments_) {
    const std::string type = a.write ? element : "const " + element;
    const std::string pointer = a.view_of.empty() ? a.name + "_" : "(" + a.view_of + "_ + (" + a.offset + "))";
    if (a.rows.empty()) code += "  " + type + "* restrict " + a.name + " = " + pointer + ";\n";
    else code += "  " + type + " (*restrict " + a.name + ")" + a.rows + " = (" + type + " (*)" + a.rows + ")" + pointer + ";\n";
  }
  report.name = name_;
  report.schedule.clear();
  report.nests.clear();
  for (const DescribedNest& nest : nests_) {
    IslContext ctx;
    ScopBuilder b(ctx.ctx());
    b.param("N", writer_options.batch);
    for (const KernelArgument& a : arguments_) b.array(a.name, element);
    // N ≥ 1 in every domain: a reduction over the batch then covers its initialisation,
    // which register blocking requires (a chain whose updates may be empty is not one).
    b.if_("N >= 1");
    nest.describe(b);
    b.end();
    Scop scop = b.build();
    PolycOptions options;
    options.register_block.enabled = true;
    options.register_block.live_out.emplace();
    for (const KernelArgument& a : arguments_)
      if (a.write) options.register_block.live_out->insert(a.name);
    options.matmul.enabled = writer_options.pack_contractions;
    options.matmul.left_in_place = writer_options.pack_contractions;
    options.vectorize = true;
    // Tiles and packed blocks sized for the caches of the machine that compiles and runs
    // the kernels (the JIT's), as `polyzero polyc` does, not CacheInfo's defaults.
    static const CacheInfo machine_caches = CacheInfo::detect();
    options.tile.cache = machine_caches;
    options.schedule.use_isl = nest.order == Order::kScheduled;
    options.time_tile.enabled = nest.order == Order::kScheduled;  // skewing is a schedule of its own
    options.data_movement = writer_options.data_movement;
    ScopReport scop_report;
    code += "  {\n" + optimize_scop(ctx, scop, options, scop_report, "    ") + "  }\n";
    report.schedule += (report.schedule.empty() ? "" : "; ") + scop_report.schedule_origin;
    report.nests.push_back(std::move(scop_report));
  }
  return code + "}\n\n";
}

}  // namespace pz::poly
