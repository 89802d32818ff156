// The options every Redis-using command shares (selfplay, status, train --redis): where
// (--redis URL), which run (--run NAME) and how to authenticate (--redis-password-file, or
// POLYZERO_REDIS_PASSWORD; never a password on the command line), --insecure for a remote
// Redis without a password.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "distributed/redis_client.h"

namespace pz::apps {

struct RedisArgs {
  std::string url, run, password_file;
  bool insecure = false;
  void add_to(CLI::App& command, bool required);
  // Throws util::UsageError for a bad URL or run name, an unreadable password file, or a
  // non-loopback Redis without a password.
  distributed::RedisOptions resolve() const;
};

}  // namespace pz::apps
