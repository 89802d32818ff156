// Checks the solver tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "solve/solver.h"

namespace pz::solve {

// Two solutions of one position agree: both complete, the same value and the same value for
// every move, in the same order.
inline void expect_same_values(const Solution& a, const Solution& b, const std::string& where) {
  ASSERT_TRUE(a.complete && b.complete) << where;
  EXPECT_EQ(a.value, b.value) << where;
  ASSERT_EQ(a.moves.size(), b.moves.size()) << where;
  for (std::size_t i = 0; i < a.moves.size(); ++i) {
    EXPECT_EQ(a.moves[i].action, b.moves[i].action) << where;
    EXPECT_EQ(a.moves[i].value, b.moves[i].value) << where << " move " << a.moves[i].action;
  }
}

}  // namespace pz::solve
