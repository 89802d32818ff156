// What travels through Redis, as bytes: finished self-play games and network weights.
//
// A game is the actors' mcts::GameRecord itself (the game's spec, every action, each searched
// position's serialised state, policy target and root value, the returns and the resignation
// facts), so the learner turns it into training samples exactly as the local trainer does
// (nn::samples_from_game, with its own q_mix and value scaling) and writes the same
// games.jsonl line. Weights are nn::NetWeights (named float tensors).
//
// Form: a 4-byte tag ("PZG1" game, "PZW1" weights), the payload's length and the CRC-32 of
// what follows (4 bytes each, little-endian), then the payload compressed with zlib (deflate). Inside, integers are
// LEB128 varints (signed ones zigzag-coded), floats and doubles their IEEE bits little-endian,
// strings a varint length and the bytes. decode_* check the tag, the lengths and the CRC and
// refuse anything else with CodecError: a damaged or foreign stream entry is reported and
// skipped, never trained on and never a crash.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "mcts/selfplay.h"
#include "nn/weights.h"

namespace pz::distributed {

class CodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string encode_game(const mcts::GameRecord& record);
mcts::GameRecord decode_game(std::string_view bytes);

std::string encode_weights(const nn::NetWeights& weights);
nn::NetWeights decode_weights(std::string_view bytes);

// The largest payload decode_* accept (uncompressed): 1 GiB.
inline constexpr std::size_t kMaxPayload = std::size_t{1} << 30;

}  // namespace pz::distributed
