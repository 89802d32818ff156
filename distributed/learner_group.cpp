#include "distributed/learner_group.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "util/error.h"

namespace pz::distributed {

namespace {

// A whole decimal integer in [lo, hi]; `what` names the flag or variable for the message.
int parse_int(const std::string& text, const std::string& what, long lo, long hi, const std::string& hint) {
  errno = 0;
  char* end = nullptr;
  const long v = text.empty() ? 0 : std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end == nullptr || *end != '\0' || errno != 0 || v < lo || v > hi) {
    throw util::UsageError(what + "='" + text + "': " + hint);
  }
  return static_cast<int>(v);
}

}  // namespace

std::string LearnerGroupSpec::describe() const {
  std::string s = "rank " + std::to_string(rank) + " of " + std::to_string(world_size);
  if (world_size > 1) s += " (master " + master_host + ":" + std::to_string(master_port) + ")";
  return s;
}

LearnerGroupSpec resolve_learner_group(const LearnerGroupFlags& flags, const std::function<const char*(const char*)>& getenv) {
  const auto env = [&](const char* name) -> std::optional<std::string> {
    const char* v = getenv ? getenv(name) : std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
  LearnerGroupSpec spec;
  std::string world_from = "--world-size", rank_from = "--rank";
  if (flags.world_size) {
    spec.world_size = *flags.world_size;
    if (spec.world_size < 1) {
      throw util::UsageError("--world-size " + std::to_string(spec.world_size) + ": the number of learners is at least 1");
    }
  } else if (const auto w = env("WORLD_SIZE")) {
    world_from = "WORLD_SIZE";
    spec.world_size = parse_int(*w, "WORLD_SIZE", 1, 65536, "the number of learners, a whole number from 1");
  } else if (const auto w = env("SLURM_NTASKS")) {
    world_from = "SLURM_NTASKS";
    spec.world_size = parse_int(*w, "SLURM_NTASKS", 1, 65536, "the number of learners, a whole number from 1");
  }
  if (flags.rank) {
    spec.rank = *flags.rank;
  } else if (const auto r = env("RANK")) {
    rank_from = "RANK";
    spec.rank = parse_int(*r, "RANK", 0, 65535, "this learner's rank, a whole number from 0");
  } else if (const auto r = env("SLURM_PROCID")) {
    rank_from = "SLURM_PROCID";
    spec.rank = parse_int(*r, "SLURM_PROCID", 0, 65535, "this learner's rank, a whole number from 0");
  }
  if (spec.rank < 0 || spec.rank >= spec.world_size) {
    throw util::UsageError(rank_from + " " + std::to_string(spec.rank) + " is not a rank of " + world_from + " " +
                           std::to_string(spec.world_size) + ": ranks are 0 to " + std::to_string(spec.world_size - 1));
  }
  if (spec.world_size == 1) return spec;

  std::string host, port_text, from;
  if (!flags.master.empty()) {
    from = "--master";
    const auto colon = flags.master.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw util::UsageError("--master '" + flags.master + "': expected HOST:PORT, rank 0's address, e.g. --master 10.0.0.5:29500");
    }
    host = flags.master.substr(0, colon);
    port_text = flags.master.substr(colon + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  } else {
    const auto addr = env("MASTER_ADDR"), port = env("MASTER_PORT");
    if (!addr || !port) {
      throw util::UsageError(world_from + " " + std::to_string(spec.world_size) +
                             ": several learners meet at rank 0's address; give --master HOST:PORT (or MASTER_ADDR and "
                             "MASTER_PORT), the same for every learner, e.g. --master 127.0.0.1:29500 on one host");
    }
    from = "MASTER_PORT";
    host = *addr;
    port_text = *port;
  }
  if (host.empty()) throw util::UsageError(from + ": the master's host is empty; expected HOST:PORT");
  spec.master_host = host;
  spec.master_port = parse_int(port_text, from == "--master" ? "--master port" : from, 1, 65535,
                               "a TCP port from 1 to 65535 that rank 0 can listen on");
  return spec;
}

}  // namespace pz::distributed
