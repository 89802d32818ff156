// Othello on 8×8 as bitboards: bit 8·y + x is cell (y, x), one uint64_t per colour. The
// legal moves come from a Kogge-Stone occluded fill per direction (shift, mask the
// opponent's discs to the inner six columns for directions that move sideways, so nothing
// wraps between rows), and the flips from the same fill started at the move, kept per
// direction when the cell past the run holds a disc of the mover's. Shared by the game
// (games/othello.h) and the endgame solver (solve/othello_solver.h).
#pragma once

#include <cstdint>

namespace pz::games::othello8 {

constexpr std::uint64_t kInner8 = 0x7E7E7E7E7E7E7E7EULL;  // columns b..g

template <int S>
constexpr std::uint64_t sh(std::uint64_t b) {
  if constexpr (S > 0) {
    return b << S;
  } else {
    return b >> -S;
  }
}

// Empty cells reached from `own` over one or more of the discs in `om` along direction S
// (Kogge-Stone occluded fill; runs are at most six discs long on 8×8).
template <int S>
inline std::uint64_t dir_moves8(std::uint64_t own, std::uint64_t om, std::uint64_t empty) {
  std::uint64_t t = om & sh<S>(own);
  t |= om & sh<S>(t);
  const std::uint64_t pro = om & sh<S>(om);
  t |= pro & sh<2 * S>(t);
  t |= pro & sh<2 * S>(t);
  return empty & sh<S>(t);
}

inline std::uint64_t moves8(std::uint64_t own, std::uint64_t opp) {
  const std::uint64_t empty = ~(own | opp), inner = opp & kInner8;
  return dir_moves8<1>(own, inner, empty) | dir_moves8<-1>(own, inner, empty) | dir_moves8<8>(own, opp, empty) |
         dir_moves8<-8>(own, opp, empty) | dir_moves8<9>(own, inner, empty) | dir_moves8<-9>(own, inner, empty) |
         dir_moves8<7>(own, inner, empty) | dir_moves8<-7>(own, inner, empty);
}

// The discs of `om` flipped along direction S by a move on `bit`: the run of them starting
// next to the move (the same fill), kept when the cell past its end holds one of `own`.
template <int S>
inline std::uint64_t dir_flips8(std::uint64_t bit, std::uint64_t own, std::uint64_t om) {
  std::uint64_t f = om & sh<S>(bit);
  f |= om & sh<S>(f);
  const std::uint64_t pro = om & sh<S>(om);
  f |= pro & sh<2 * S>(f);
  f |= pro & sh<2 * S>(f);
  return f & (std::uint64_t{0} - static_cast<std::uint64_t>((sh<S>(f) & own) != 0));
}

inline std::uint64_t flips8(int cell, std::uint64_t own, std::uint64_t opp) {
  const std::uint64_t bit = std::uint64_t{1} << cell, inner = opp & kInner8;
  return dir_flips8<1>(bit, own, inner) | dir_flips8<-1>(bit, own, inner) | dir_flips8<8>(bit, own, opp) |
         dir_flips8<-8>(bit, own, opp) | dir_flips8<9>(bit, own, inner) | dir_flips8<-9>(bit, own, inner) |
         dir_flips8<7>(bit, own, inner) | dir_flips8<-7>(bit, own, inner);
}

}  // namespace pz::games::othello8
