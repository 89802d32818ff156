// Networks in the module: the model players and model evaluators, in both builds (models in
// safetensors files, on the poly backend); in a build with LibTorch also the torch backend,
// LibTorch archive checkpoints (.pt) and LibTorch's learner, registered the way the
// polyzero program does (apps/with_torch.cpp). with_torch.cpp or without_torch.cpp, chosen by PZ_WITH_TORCH.
#pragma once

namespace pz::python {

// Registers the network backends, checkpoint readers and model-backed player kinds, and
// the solver player. Called once, when the module is imported.
void register_players_and_networks();

// Whether this build reads LibTorch archives and has the torch backend.
bool has_libtorch();

}  // namespace pz::python
