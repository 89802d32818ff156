// What a build with LibTorch adds to the torch-free parts of nn/: the `torch` network
// backend (backend.h) and reading checkpoints in LibTorch's archive form (model_file.h).
// Programs and tests that link pz_nn call register_libtorch() before they make backends or
// read checkpoints; it also leaves LibTorch one intra-op thread (a backend or learner that
// wants more asks for them), because threads that spin-wait for a descheduled partner make
// a busy machine many times slower. Idempotent and thread-safe.
#pragma once

namespace pz::nn {

void register_libtorch();

}  // namespace pz::nn
