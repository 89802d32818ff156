// distributed/redis_client.h: URLs, loopback detection and where passwords may come from.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "distributed/redis_client.h"
#include "distributed/run_store.h"
#include "util/error.h"

namespace pz::distributed {
namespace {

TEST(RedisUrl, ParsesHostPortAndDatabase) {
  auto e = parse_redis_url("redis://127.0.0.1:6390");
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, 6390);
  EXPECT_EQ(e.db, 0);
  e = parse_redis_url("redis://cache.example.org");
  EXPECT_EQ(e.host, "cache.example.org");
  EXPECT_EQ(e.port, 6379);
  e = parse_redis_url("redis://localhost:1/15");
  EXPECT_EQ(e.port, 1);
  EXPECT_EQ(e.db, 15);
  EXPECT_EQ(e.to_string(), "redis://localhost:1/15");
  e = parse_redis_url("redis://[::1]:7000/2");
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, 7000);
  EXPECT_EQ(e.db, 2);
  EXPECT_EQ(e.to_string(), "redis://[::1]:7000/2");
}

TEST(RedisUrl, RefusesMalformedUrlsAndCredentials) {
  for (const char* bad : {"", "127.0.0.1:6379", "http://x:1", "redis://", "redis://:6379", "redis://h:", "redis://h:0",
                          "redis://h:65536", "redis://h:12ab", "redis://h:1/x", "redis://h h:1", "redis://[::1:5",
                          "rediss://h:1"}) {
    EXPECT_THROW(parse_redis_url(bad), util::UsageError) << bad;
  }
  try {
    parse_redis_url("redis://user:hunter2@h:1");
    FAIL() << "credentials accepted";
  } catch (const util::UsageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("hunter2"), std::string::npos) << "the password is repeated: " << what;
    EXPECT_NE(what.find("POLYZERO_REDIS_PASSWORD"), std::string::npos) << what;
  }
}

TEST(RedisUrl, KnowsLoopbackHosts) {
  for (const char* h : {"localhost", "127.0.0.1", "127.1.2.3", "::1"}) EXPECT_TRUE(is_loopback_host(h)) << h;
  for (const char* h : {"10.0.0.1", "127.example.org", "example.org", "0.0.0.0", "127.0.0.1x"}) {
    EXPECT_FALSE(is_loopback_host(h)) << h;
  }
}

TEST(RedisAuth, PasswordFromFileOrEnvironmentAndRemoteNeedsOne) {
  ::unsetenv("POLYZERO_REDIS_PASSWORD");
  ::unsetenv("POLYZERO_REDIS_USER");
  const auto remote = parse_redis_url("redis://10.1.2.3:6379");
  const auto local = parse_redis_url("redis://127.0.0.1:6379");
  EXPECT_TRUE(resolve_redis_auth(local, "", false).password.empty());
  EXPECT_THROW(resolve_redis_auth(remote, "", false), util::UsageError);
  EXPECT_TRUE(resolve_redis_auth(remote, "", true).password.empty());
  ::setenv("POLYZERO_REDIS_PASSWORD", "from-env", 1);
  EXPECT_EQ(resolve_redis_auth(remote, "", false).password, "from-env");
  const auto file = std::filesystem::temp_directory_path() / ("pz_redis_pw_" + std::to_string(::getpid()));
  std::ofstream(file) << "from-file\nsecond line\n";
  EXPECT_EQ(resolve_redis_auth(remote, file.string(), false).password, "from-file");
  EXPECT_THROW(resolve_redis_auth(remote, file.string() + ".missing", false), util::UsageError);
  std::ofstream(file) << "\n";
  EXPECT_THROW(resolve_redis_auth(remote, file.string(), false), util::UsageError);
  std::filesystem::remove(file);
  ::unsetenv("POLYZERO_REDIS_PASSWORD");
}

TEST(RunName, AcceptsSimpleNamesOnly) {
  EXPECT_NO_THROW(check_run_name("ttt-1.a_b"));
  for (const char* bad : {"", "a b", "a:b", "a/b", "a*"}) EXPECT_THROW(check_run_name(bad), util::UsageError) << bad;
  EXPECT_THROW(check_run_name(std::string(65, 'a')), util::UsageError);
}

TEST(RedisClient, UnreachableServerIsAnErrorNotAHang) {
  RedisOptions o;
  o.endpoint = parse_redis_url("redis://127.0.0.1:1");  // nothing listens on port 1
  o.connect_timeout = std::chrono::milliseconds(500);
  RedisClient c(o);
  EXPECT_THROW(c.connect(), RedisError);
  EXPECT_FALSE(c.try_reconnect());
  EXPECT_FALSE(c.try_reconnect());  // within the backoff: no attempt at all
  EXPECT_THROW(c.command({"PING"}), RedisError);
}

}  // namespace
}  // namespace pz::distributed
