#include "nn/replay_buffer.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "util/error.h"
#include "util/fnv1a.h"

namespace pz::nn {

namespace {

constexpr char kMagic[4] = {'P', 'Z', 'R', 'B'};
constexpr std::uint32_t kFormat = 2;  // format 1: no ownership row size, no auxiliary rows

// Writes and checksums in one pass.
struct Writer {
  std::ofstream& out;
  std::uint64_t hash = util::kFnv1aOffsetBasis;
  void bytes(const void* data, std::size_t n) {
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    hash = util::fnv1a(data, n, hash);
  }
  template <class T>
  void value(const T& v) { bytes(&v, sizeof v); }
};

struct Reader {
  std::ifstream& in;
  const std::string& path;
  std::uint64_t hash = util::kFnv1aOffsetBasis;
  void bytes(void* data, std::size_t n) {
    in.read(static_cast<char*>(data), static_cast<std::streamsize>(n));
    if (static_cast<std::size_t>(in.gcount()) != n) throw util::UsageError("replay buffer " + path + " is truncated");
    hash = util::fnv1a(data, n, hash);
  }
  template <class T>
  T value() {
    T v{};
    bytes(&v, sizeof v);
    return v;
  }
};

}  // namespace

ReplayBuffer::ReplayBuffer(const games::Game& game, std::size_t capacity, bool auxiliary)
    : game_(game),
      capacity_(capacity),
      obs_size_(static_cast<std::size_t>(game.info().observation_shape.size())),
      policy_size_(static_cast<std::size_t>(game.info().policy_shape.size())),
      value_size_(static_cast<std::size_t>(net_shape(game.info()).value_outputs)),
      ownership_size_(auxiliary ? static_cast<std::size_t>(game.info().observation_shape.plane_size()) : 0) {
  if (capacity_ == 0) throw std::invalid_argument("replay buffer: capacity must be at least 1");
}

std::size_t ReplayBuffer::physical(std::size_t index) const {
  // The oldest kept row sits at next_ once the ring has wrapped.
  return count_ < capacity_ ? index : (next_ + index) % capacity_;
}

void ReplayBuffer::add(const std::vector<Sample>& samples) {
  std::lock_guard lock(mutex_);
  for (const Sample& s : samples) {
    if (s.observation.size() != obs_size_ || s.value.size() != value_size_ ||
        (!s.policy.empty() && s.policy.size() != policy_size_) ||
        (!s.ownership.empty() && s.ownership.size() != ownership_size_)) {
      throw std::invalid_argument("replay buffer: sample of the wrong shape");
    }
    if (count_ < capacity_) {
      // Grow as games arrive: a large capacity costs nothing until it is used.
      obs_.resize((count_ + 1) * obs_size_);
      policy_.resize((count_ + 1) * policy_size_);
      mask_.resize(count_ + 1);
      value_.resize((count_ + 1) * value_size_);
      if (ownership_size_ > 0) {
        ownership_.resize((count_ + 1) * ownership_size_);
        score_.resize(count_ + 1);
        aux_mask_.resize(count_ + 1);
      }
    }
    const std::size_t r = next_;
    std::copy(s.observation.begin(), s.observation.end(), obs_.begin() + static_cast<std::ptrdiff_t>(r * obs_size_));
    if (s.policy.empty()) {
      std::fill_n(policy_.begin() + static_cast<std::ptrdiff_t>(r * policy_size_), policy_size_, 0.0f);
    } else {
      std::copy(s.policy.begin(), s.policy.end(), policy_.begin() + static_cast<std::ptrdiff_t>(r * policy_size_));
    }
    mask_[r] = s.policy.empty() ? 0.0f : 1.0f;
    std::copy(s.value.begin(), s.value.end(), value_.begin() + static_cast<std::ptrdiff_t>(r * value_size_));
    if (ownership_size_ > 0) {
      const auto at = ownership_.begin() + static_cast<std::ptrdiff_t>(r * ownership_size_);
      if (s.ownership.empty()) std::fill_n(at, ownership_size_, 0.0f);
      else std::copy(s.ownership.begin(), s.ownership.end(), at);
      score_[r] = s.ownership.empty() ? 0.0f : s.score;
      aux_mask_[r] = s.ownership.empty() ? 0.0f : 1.0f;
    }
    next_ = (next_ + 1) % capacity_;
    count_ = std::min(count_ + 1, capacity_);
    ++total_added_;
  }
}

std::size_t ReplayBuffer::size() const {
  std::lock_guard lock(mutex_);
  return count_;
}

std::int64_t ReplayBuffer::total_added() const {
  std::lock_guard lock(mutex_);
  return total_added_;
}

Sample ReplayBuffer::row(std::size_t index) const {
  std::lock_guard lock(mutex_);
  if (index >= count_) throw std::out_of_range("replay buffer: row out of range");
  const std::size_t r = physical(index);
  Sample s;
  s.observation.assign(obs_.begin() + static_cast<std::ptrdiff_t>(r * obs_size_),
                       obs_.begin() + static_cast<std::ptrdiff_t>((r + 1) * obs_size_));
  if (mask_[r] > 0) {
    s.policy.assign(policy_.begin() + static_cast<std::ptrdiff_t>(r * policy_size_),
                    policy_.begin() + static_cast<std::ptrdiff_t>((r + 1) * policy_size_));
  }
  s.value.assign(value_.begin() + static_cast<std::ptrdiff_t>(r * value_size_),
                 value_.begin() + static_cast<std::ptrdiff_t>((r + 1) * value_size_));
  if (ownership_size_ > 0 && aux_mask_[r] > 0) {
    s.ownership.assign(ownership_.begin() + static_cast<std::ptrdiff_t>(r * ownership_size_),
                       ownership_.begin() + static_cast<std::ptrdiff_t>((r + 1) * ownership_size_));
    s.score = score_[r];
  }
  return s;
}

Batch ReplayBuffer::sample(int batch_size, util::Rng& rng, bool augment) const {
  Batch b;
  b.size = batch_size;
  const auto n = static_cast<std::size_t>(batch_size);
  b.observations.resize(n * obs_size_);
  b.policies.resize(n * policy_size_);
  b.policy_mask.resize(n);
  b.values.resize(n * value_size_);
  if (ownership_size_ > 0) {
    b.ownership.resize(n * ownership_size_);
    b.score.resize(n);
    b.auxiliary_mask.resize(n);
  }
  const games::Shape plane{1, game_.info().observation_shape.height, game_.info().observation_shape.width};
  const auto& symmetries = game_.symmetries();
  const games::Shape& obs_shape = game_.info().observation_shape;
  std::lock_guard lock(mutex_);
  if (count_ == 0) throw std::logic_error("replay buffer: sampling from an empty buffer");
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = physical(rng.below(static_cast<std::uint32_t>(count_)));
    const games::Symmetry sym =
        augment && symmetries.size() > 1 ? symmetries[rng.below(static_cast<std::uint32_t>(symmetries.size()))]
                                         : games::Symmetry::kIdentity;
    const float* obs = &obs_[r * obs_size_];
    const float* pol = &policy_[r * policy_size_];
    if (sym == games::Symmetry::kIdentity) {
      std::copy_n(obs, obs_size_, &b.observations[i * obs_size_]);
      std::copy_n(pol, policy_size_, &b.policies[i * policy_size_]);
    } else {
      game_.transform_planes(sym, obs_shape, obs, &b.observations[i * obs_size_]);
      game_.transform_policy(sym, pol, &b.policies[i * policy_size_]);
    }
    b.policy_mask[i] = mask_[r];
    std::copy_n(&value_[r * value_size_], value_size_, &b.values[i * value_size_]);
    if (ownership_size_ > 0) {
      const float* own = &ownership_[r * ownership_size_];
      if (sym == games::Symmetry::kIdentity) std::copy_n(own, ownership_size_, &b.ownership[i * ownership_size_]);
      else game_.transform_planes(sym, plane, own, &b.ownership[i * ownership_size_]);
      b.score[i] = score_[r];
      b.auxiliary_mask[i] = aux_mask_[r];
    }
  }
  return b;
}

void ReplayBuffer::save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write replay buffer " + path);
  std::lock_guard lock(mutex_);
  Writer w{out};
  w.bytes(kMagic, 4);
  w.value(kFormat);
  w.value(static_cast<std::uint64_t>(obs_size_));
  w.value(static_cast<std::uint64_t>(policy_size_));
  w.value(static_cast<std::uint64_t>(value_size_));
  w.value(static_cast<std::uint64_t>(ownership_size_));
  w.value(static_cast<std::uint64_t>(count_));
  w.value(total_added_);
  // Rows oldest first, so a buffer of another capacity can take them.
  for (std::size_t i = 0; i < count_; ++i) {
    const std::size_t r = physical(i);
    w.bytes(&obs_[r * obs_size_], obs_size_ * sizeof(float));
    w.bytes(&policy_[r * policy_size_], policy_size_ * sizeof(float));
    w.bytes(&mask_[r], sizeof(float));
    w.bytes(&value_[r * value_size_], value_size_ * sizeof(float));
    if (ownership_size_ > 0) {
      w.bytes(&ownership_[r * ownership_size_], ownership_size_ * sizeof(float));
      w.bytes(&score_[r], sizeof(float));
      w.bytes(&aux_mask_[r], sizeof(float));
    }
  }
  const std::uint64_t checksum = w.hash;
  out.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
  out.flush();
  if (!out) throw std::runtime_error("error writing replay buffer " + path);
}

void ReplayBuffer::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw util::UsageError("cannot open replay buffer " + path);
  Reader r{in, path};
  char magic[4];
  r.bytes(magic, 4);
  if (std::memcmp(magic, kMagic, 4) != 0) throw util::UsageError(path + " is not a polyzero replay buffer");
  const auto format = r.value<std::uint32_t>();
  if (format != kFormat && format != 1) {
    throw util::UsageError("replay buffer " + path + " has format " + std::to_string(format) + ", this build reads " +
                           std::to_string(kFormat));
  }
  const auto obs = r.value<std::uint64_t>(), pol = r.value<std::uint64_t>(), val = r.value<std::uint64_t>();
  const auto own = format == 1 ? 0 : r.value<std::uint64_t>();
  if (obs != obs_size_ || pol != policy_size_ || val != value_size_) {
    throw util::UsageError("replay buffer " + path + " holds samples of another game or shape");
  }
  if (own != ownership_size_) {
    throw util::UsageError("replay buffer " + path + (own == 0 ? " has no" : " has") +
                           " auxiliary targets (ownership, score), and this network " + (own == 0 ? "needs" : "has no heads for") +
                           " them");
  }
  const auto count = r.value<std::uint64_t>();
  const auto total = r.value<std::int64_t>();
  if (count > (1ULL << 32) || total < 0 || static_cast<std::uint64_t>(total) < count) {
    throw util::UsageError("replay buffer " + path + " is corrupt (bad counters)");
  }
  // The rows must be in the file before memory is taken for them.
  const std::uint64_t row_bytes =
      (obs_size_ + policy_size_ + 1 + value_size_ + (ownership_size_ > 0 ? ownership_size_ + 2 : 0)) * sizeof(float);
  std::error_code size_error;
  const std::uint64_t file_bytes = std::filesystem::file_size(path, size_error);
  if (size_error || count > file_bytes / row_bytes) {
    throw util::UsageError("replay buffer " + path + " is truncated (its header counts " + std::to_string(count) + " rows)");
  }
  std::vector<float> o(count * obs_size_), p(count * policy_size_), m(count), v(count * value_size_);
  std::vector<float> ow(count * ownership_size_), sc(ownership_size_ > 0 ? count : 0), am(sc.size());
  for (std::size_t i = 0; i < count; ++i) {
    r.bytes(&o[i * obs_size_], obs_size_ * sizeof(float));
    r.bytes(&p[i * policy_size_], policy_size_ * sizeof(float));
    r.bytes(&m[i], sizeof(float));
    r.bytes(&v[i * value_size_], value_size_ * sizeof(float));
    if (ownership_size_ > 0) {
      r.bytes(&ow[i * ownership_size_], ownership_size_ * sizeof(float));
      r.bytes(&sc[i], sizeof(float));
      r.bytes(&am[i], sizeof(float));
    }
  }
  const std::uint64_t expected = r.hash;
  std::uint64_t checksum = 0;
  in.read(reinterpret_cast<char*>(&checksum), sizeof checksum);
  if (in.gcount() != sizeof checksum) throw util::UsageError("replay buffer " + path + " is truncated");
  if (checksum != expected) throw util::UsageError("replay buffer " + path + " is corrupt (checksum mismatch)");

  const std::size_t keep = std::min<std::size_t>(count, capacity_), skip = count - keep;
  std::lock_guard lock(mutex_);
  obs_.assign(o.begin() + static_cast<std::ptrdiff_t>(skip * obs_size_), o.end());
  policy_.assign(p.begin() + static_cast<std::ptrdiff_t>(skip * policy_size_), p.end());
  mask_.assign(m.begin() + static_cast<std::ptrdiff_t>(skip), m.end());
  value_.assign(v.begin() + static_cast<std::ptrdiff_t>(skip * value_size_), v.end());
  if (ownership_size_ > 0) {
    ownership_.assign(ow.begin() + static_cast<std::ptrdiff_t>(skip * ownership_size_), ow.end());
    score_.assign(sc.begin() + static_cast<std::ptrdiff_t>(skip), sc.end());
    aux_mask_.assign(am.begin() + static_cast<std::ptrdiff_t>(skip), am.end());
  }
  count_ = keep;
  next_ = keep % capacity_;
  total_added_ = total;
}

}  // namespace pz::nn
