// The learners of one distributed run as a data-parallel group (nn/data_parallel.h): who is
// who, where they meet, and the connection itself.
//
// Which rank, of how many, meeting where — from the flags, else from the environment as the
// usual launchers set it:
//   torchrun, torch.distributed.launch:  RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   Slurm (srun):                         SLURM_PROCID, SLURM_NTASKS (MASTER_ADDR and
//                                         MASTER_PORT from the job script)
// Flags win over RANK/WORLD_SIZE, which win over SLURM_*. A group of one needs no master.
//
// The connection (connect_learner_group): a c10d TCPStore served by rank 0 on MASTER:PORT
// (the others connect to it) for the rendezvous, then c10d's ProcessGroupGloo over TCP for
// the collectives. Each rank's Gloo endpoint binds to the interface named by
// GLOO_SOCKET_IFNAME when set (PyTorch's variable), to loopback when the master is a
// loopback address, else to the address this host's name resolves to. Every operation,
// the rendezvous included, gives up after `timeout` with nn::GroupError naming the rank and
// what to check; a peer that exits or is killed fails the others' next collective at once
// (its connections close).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "nn/data_parallel.h"

namespace pz::distributed {

struct LearnerGroupSpec {
  int rank = 0;
  int world_size = 1;
  std::string master_host;  // empty for a group of one
  int master_port = 0;
  std::string describe() const;  // "rank 1 of 2 (master 127.0.0.1:29500)"
};

struct LearnerGroupFlags {
  std::optional<int> rank, world_size;
  std::string master;  // HOST:PORT, empty: not given
};

// Resolves the flags over the environment (`getenv`, std::getenv by default). Throws
// util::UsageError (exit status 2) for a value that is not a number, a world size below 1, a
// rank outside [0, world size), a missing or malformed master for a group of several, or a
// port outside 1-65535, naming the flag or variable it came from.
LearnerGroupSpec resolve_learner_group(const LearnerGroupFlags& flags,
                                       const std::function<const char*(const char*)>& getenv = nullptr);

// Whether this build has Gloo (libgloo-dev at build time); without it connect_learner_group
// refuses a group of several with util::UsageError.
bool learner_groups_supported();

// Joins the group (collective: every rank must call it). Throws nn::GroupError when the
// others do not come within `timeout`.
std::unique_ptr<nn::DataParallelGroup> connect_learner_group(const LearnerGroupSpec& spec, const std::string& run,
                                                             std::chrono::milliseconds timeout);

}  // namespace pz::distributed
