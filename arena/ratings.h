// Elo ratings with draws and a first-move advantage, by maximum likelihood, as BayesElo
// computes them (R. Coulom, "Bayesian Elo Rating", 2005; the draw model is Rao and Kupper's
// extension of Bradley–Terry, 1967).
//
// Model. For a game where player i moves first against j, with u = r_i − r_j + advantage
// (all in Elo) and f(x) = 1 / (1 + 10^(−x/400)):
//   P(i wins) = f(u − draw),   P(j wins) = f(−u − draw),   P(draw) = the rest.
// `draw` > 0 widens the band of rating gaps where draws happen; `advantage` is what moving
// first is worth. Ratings, advantage and draw width are fitted together by Newton's method
// on the log-likelihood. Ratings are anchored: one chosen player has a fixed rating and the
// others are measured against it.
//
// Prior. Players that win every game have an infinite maximum-likelihood rating. Like
// BayesElo's virtual draws, `prior_games` virtual games are added between every pair of
// players that met, but as an even score of wins and losses (a quarter of them won by each
// player with each colour), which keeps every rating finite even when the draw width is
// fitted and pulls small samples towards equality; 0 gives the plain maximum-likelihood fit.
//
// Uncertainty. The covariance of the ratings is the inverse of the observed information
// (minus the Hessian of the log-likelihood at the fit, anchor removed); intervals are
// rating ± 1.96 standard errors, and the likelihood of superiority of i over j is
// Φ((r_i − r_j) / sd(r_i − r_j)).
//
// Identifiability. Players not connected to the anchor by games are left unrated. The
// advantage is fitted only when some pair met with both players first; the draw width only
// when the games (prior included) have both draws and decisive results — otherwise the
// advantage stays at its fixed value, and the draw width too, except that games without
// any draw are fitted with the narrowest band (plain Bradley–Terry).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pz::arena {

// Game counts by (player moving first, player moving second, result for the first player).
// Counts may be fractional (expected counts in tests, weights).
class ResultTable {
 public:
  explicit ResultTable(int players);

  int players() const { return players_; }
  void add_win(int first, int second, double count = 1);   // `first` won
  void add_draw(int first, int second, double count = 1);
  void add_loss(int first, int second, double count = 1);  // `first` lost

  double wins(int first, int second) const { return at(first, second).wins; }
  double draws(int first, int second) const { return at(first, second).draws; }
  double losses(int first, int second) const { return at(first, second).losses; }
  double games(int first, int second) const;
  // Over both colour orders: i's points against j (win 1, draw ½) and the games they played.
  double points(int i, int j) const;
  double games_between(int i, int j) const { return games(i, j) + games(j, i); }
  double total_games(int i) const;
  double total_points(int i) const;

 private:
  struct Cell {
    double wins = 0, draws = 0, losses = 0;
  };
  Cell& at(int first, int second);
  const Cell& at(int first, int second) const;

  int players_;
  std::vector<Cell> cells_;
};

struct RatingOptions {
  int anchor = 0;              // the player whose rating is fixed
  double anchor_elo = 0;       // its rating
  double prior_games = 2;      // virtual games per pair that met, an even score
  double draw_elo = 97.3;      // the draw width when it is not fitted (BayesElo's default)
  double advantage_elo = 0;    // the first-move advantage when it is not fitted
  bool fit_draw = true;        // fit the draw width when the games can tell it
  bool fit_advantage = true;   // fit the advantage when the games can tell it
};

struct Ratings {
  std::vector<double> elo;            // by player; NaN when unrated
  std::vector<double> stderr_elo;     // standard error (0 for the anchor; NaN when unrated)
  std::vector<std::vector<double>> covariance;  // of the ratings, Elo² (anchor rows 0)
  double draw_elo = 0, advantage_elo = 0;
  bool draw_fitted = false, advantage_fitted = false;
  double log_likelihood = 0;
  int iterations = 0;

  bool rated(int i) const;
  // Half-width of the 95% interval (1.96 standard errors).
  double interval95(int i) const;
  // Likelihood of superiority: the probability that i is stronger than j.
  double likelihood_of_superiority(int i, int j) const;
  // The model's probabilities of (win, draw, loss) for `first` against `second`.
  struct Probabilities {
    double win, draw, loss;
  };
  Probabilities predict(int first, int second) const;
};

// Throws std::invalid_argument for an anchor out of range or negative counts.
Ratings fit_ratings(const ResultTable& results, const RatingOptions& options = {});

// The expected score (win 1, draw ½) of a player rated `elo_gap` above its opponent, under
// the logistic Elo curve: 1 / (1 + 10^(−gap/400)).
double expected_score(double elo_gap);
// Its inverse: the Elo gap of a score in (0, 1).
double elo_gap_of_score(double score);

}  // namespace pz::arena
