#include "util/subprocess.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pz::util {
namespace {

using Clock = Subprocess::Clock;

Clock::time_point in_seconds(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(Subprocess, TalksThroughPipesLineByLine) {
  Subprocess cat("cat");
  ASSERT_TRUE(cat.write("hello\r\nworld\n", in_seconds(5)));
  std::string line;
  ASSERT_EQ(cat.read_line(line, in_seconds(5)), Subprocess::ReadStatus::kLine);
  EXPECT_EQ(line, "hello");
  ASSERT_EQ(cat.read_line(line, in_seconds(5)), Subprocess::ReadStatus::kLine);
  EXPECT_EQ(line, "world");
  EXPECT_TRUE(cat.running());
  cat.stop(1.0);  // cat ends at the end of its input
  EXPECT_EQ(cat.exit_description(), "exited (status 0)");
}

TEST(Subprocess, ReturnsTheLastUnterminatedLineThenTheEnd) {
  Subprocess printer("printf 'a\\nb'");
  std::string line;
  ASSERT_EQ(printer.read_line(line, in_seconds(5)), Subprocess::ReadStatus::kLine);
  EXPECT_EQ(line, "a");
  ASSERT_EQ(printer.read_line(line, in_seconds(5)), Subprocess::ReadStatus::kLine);
  EXPECT_EQ(line, "b");
  EXPECT_EQ(printer.read_line(line, in_seconds(5)), Subprocess::ReadStatus::kEndOfOutput);
  EXPECT_EQ(printer.exit_description(1.0), "exited (status 0)");
}

TEST(Subprocess, ReadsTimeOutAndStopEndsAChildThatIgnoresItsInput) {
  const auto start = Clock::now();
  Subprocess sleeper("sleep 30");
  std::string line;
  EXPECT_EQ(sleeper.read_line(line, in_seconds(0.1)), Subprocess::ReadStatus::kTimedOut);
  EXPECT_EQ(sleeper.exit_description(0.0), "is running");
  sleeper.stop();
  EXPECT_FALSE(sleeper.running());
  EXPECT_LT(seconds_since(start), 2.0);
}

TEST(Subprocess, WritingToAChildThatExitedFailsWithoutSigpipe) {
  Subprocess quitter("exit 3");
  EXPECT_EQ(quitter.exit_description(5.0), "exited (status 3)");
  // Far more than a pipe holds, so the write cannot just land in the buffer.
  EXPECT_FALSE(quitter.write(std::string(1 << 20, 'x'), in_seconds(5)));
  EXPECT_FALSE(quitter.write("again\n", in_seconds(5)));
}

TEST(Subprocess, DescribesDeathBySignalAndEscalatesToSigkill) {
  Subprocess victim("kill -9 $$");
  EXPECT_EQ(victim.exit_description(5.0), "was killed by signal 9");
  const auto start = Clock::now();
  {
    Subprocess stubborn("trap '' TERM; echo ready; sleep 30");
    std::string line;
    ASSERT_EQ(stubborn.read_line(line, in_seconds(5)), Subprocess::ReadStatus::kLine);
    stubborn.stop();
    EXPECT_EQ(stubborn.exit_description(), "was killed by signal 9");
  }
  EXPECT_LT(seconds_since(start), 3.0);
}

TEST(Subprocess, AppendsStandardErrorToTheLog) {
  const auto log =
      std::filesystem::temp_directory_path() / ("pz_subprocess_test_" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(log);
  {
    Subprocess noisy("echo oops >&2", log.string());
    EXPECT_EQ(noisy.exit_description(5.0), "exited (status 0)");
  }
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "oops\n");
  std::filesystem::remove(log);
  EXPECT_THROW(Subprocess("true", "/nonexistent/dir/log"), std::runtime_error);
}

}  // namespace
}  // namespace pz::util
