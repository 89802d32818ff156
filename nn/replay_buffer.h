// The replay buffer: the last `capacity` training samples, sampled uniformly.
//
// Self-play actors add whole games; the learner draws minibatches, each sample seen under a
// random symmetry of the game when augmentation is on (transform_planes on the observation,
// transform_policy on the policy target, so direction planes and pass moves move right).
// Samples live in flat arrays, one row per sample, so a minibatch is a few memcpys and the
// buffer saves and loads as raw rows. Thread-safe: one mutex, held for copies only.
//
// A buffer made with `auxiliary` also keeps the auxiliary targets (encoding.h Sample::ownership,
// score) and a mask saying which rows have them; ownership moves with the symmetry as one
// more plane.
//
// Saved form (checkpoints): "PZRB", format version, row sizes, capacity, counters, the rows,
// then an FNV-1a checksum of everything before it; load() refuses a file whose sizes or
// checksum disagree, with a message naming the file. Format 2 adds the ownership row size
// (0 without auxiliary targets) and, when it is not 0, each row's ownership, score and mask;
// format 1 files (no auxiliary targets) still load into buffers without them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "games/game.h"
#include "nn/encoding.h"
#include "util/rng.h"

namespace pz::nn {

// A minibatch as flat row-major arrays.
struct Batch {
  int size = 0;
  std::vector<float> observations;  // size × observation_shape.size()
  std::vector<float> policies;      // size × policy_shape.size()
  std::vector<float> policy_mask;   // size: 1 where the row has a policy target
  std::vector<float> values;        // size × value_outputs
  // Auxiliary buffers only (ReplayBuffer's `auxiliary`), else empty:
  std::vector<float> ownership;       // size × H·W (observation cells)
  std::vector<float> score;           // size
  std::vector<float> auxiliary_mask;  // size: 1 where the row has the two targets
};

class ReplayBuffer {
 public:
  // `game` must outlive the buffer. `auxiliary`: keep the auxiliary targets too.
  ReplayBuffer(const games::Game& game, std::size_t capacity, bool auxiliary = false);

  void add(const std::vector<Sample>& samples);
  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }
  std::int64_t total_added() const;

  // `batch_size` rows drawn uniformly with replacement; with `augment`, each under a
  // uniformly drawn symmetry. Precondition: size() > 0.
  Batch sample(int batch_size, util::Rng& rng, bool augment) const;

  // Row `index` (0 = oldest kept) as a Sample, for tests and inspection.
  Sample row(std::size_t index) const;

  void save(const std::string& path) const;
  // Replaces the contents. Throws util::UsageError when the file is unreadable, truncated,
  // corrupt or made for other row sizes. A smaller capacity keeps the newest rows.
  void load(const std::string& path);

 private:
  std::size_t physical(std::size_t index) const;  // ring position of logical row `index`

  const games::Game& game_;
  const std::size_t capacity_;
  const std::size_t obs_size_, policy_size_, value_size_;
  const std::size_t ownership_size_;  // 0: no auxiliary targets
  mutable std::mutex mutex_;
  std::vector<float> obs_, policy_, mask_, value_;
  std::vector<float> ownership_, score_, aux_mask_;  // auxiliary buffers only
  std::size_t count_ = 0, next_ = 0;
  std::int64_t total_added_ = 0;
};

}  // namespace pz::nn
