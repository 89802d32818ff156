#include "util/thread_team.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace pz::util {
namespace {

TEST(ThreadTeam, EveryMemberRunsOnceOnItsOwnThreadPerJob) {
  ThreadTeam team;
  for (int job = 0; job < 500; ++job) {
    std::vector<int> calls(3, 0);
    std::vector<std::thread::id> ids(3);
    team.run(3, [&](int member) {
      ++calls[static_cast<std::size_t>(member)];
      ids[static_cast<std::size_t>(member)] = std::this_thread::get_id();
    });
    // run() returned after every member's call, and sees what each wrote.
    ASSERT_EQ(calls, (std::vector<int>{1, 1, 1})) << "job " << job;
    ASSERT_EQ(ids[0], std::this_thread::get_id());
    ASSERT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), 3U);
  }
  EXPECT_EQ(team.helpers(), 2);
}

TEST(ThreadTeam, KeepsItsHelpersAcrossJobsOfAnySize) {
  ThreadTeam team;
  std::thread::id first_helper;
  team.run(2, [&](int member) {
    if (member == 1) first_helper = std::this_thread::get_id();
  });
  // Fewer members than helpers: the spare helper sits the job out.
  std::vector<int> calls(3, 0);
  team.run(1, [&](int member) { ++calls[static_cast<std::size_t>(member)]; });
  EXPECT_EQ(calls, (std::vector<int>{1, 0, 0}));
  team.run(3, [&](int member) { ++calls[static_cast<std::size_t>(member)]; });
  EXPECT_EQ(calls, (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(team.helpers(), 2);
  std::thread::id again;
  team.run(2, [&](int member) {
    if (member == 1) again = std::this_thread::get_id();
  });
  EXPECT_EQ(again, first_helper);
}

TEST(ThreadTeam, WakesHelpersThatFellAsleep) {
  ThreadTeam team;
  int sum = 0;
  std::vector<int> parts(2, 0);
  for (int job = 0; job < 3; ++job) {
    // Longer than the helpers spin: they are asleep when the next job comes.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    team.run(2, [&](int member) { parts[static_cast<std::size_t>(member)] += member + 1; });
    sum = parts[0] + parts[1];
  }
  EXPECT_EQ(sum, 9);
}

}  // namespace
}  // namespace pz::util
