// polyzero export IN OUT: a model checkpoint rewritten in the form OUT's name asks for
// (nn/checkpoint.h): OUT.safetensors for tools and builds without LibTorch, anything else a
// LibTorch archive. The description (game, network, step, provenance) travels unchanged; the
// checksum is the new file's own.
#include <iostream>
#include <memory>

#include "apps/torch_support.h"
#include "nn/checkpoint.h"
#include "nn/model_file.h"
#include "util/error.h"

namespace pz::apps {

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "write a model checkpoint in another form (.pt or .safetensors)");
  auto in = std::make_shared<std::string>(), out = std::make_shared<std::string>();
  cmd->add_option("checkpoint", *in, "the model checkpoint to read (.pt or .safetensors)")->required();
  cmd->add_option("output", *out, "the file to write: a name ending in .safetensors gives safetensors, else a LibTorch archive")
      ->required();
  cmd->callback([in, out] {
    if (*in == *out) throw util::UsageError("export: the output must be another file than " + *in);
    nn::LoadedModel model = nn::load_model(*in);
    nn::save_model(*out, *model.net, model.info);
    std::cout << "wrote " << *out << " (" << (nn::safetensors_path(*out) ? "safetensors" : "LibTorch archive") << ") from "
              << *in << "\n";
  });
}

}  // namespace pz::apps
