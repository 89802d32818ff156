#include "games/minesweeper_sampler.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <unordered_map>

namespace pz::games {
namespace {

// C(n, k) for every k, as long doubles (C(720, 360) is about 1e215).
std::vector<long double> binomials(int n) {
  std::vector<long double> c(static_cast<size_t>(n) + 1);
  c[0] = 1;
  for (int k = 0; k < n; ++k) c[static_cast<size_t>(k) + 1] = c[static_cast<size_t>(k)] * (n - k) / (k + 1);
  return c;
}

// Index drawn with probability proportional to weights[i].
int draw(const std::vector<long double>& weights, util::Rng& rng) {
  long double total = 0;
  for (long double w : weights) total += w;
  long double u = static_cast<long double>(rng.uniform()) * total;
  int last = -1;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    last = static_cast<int>(i);
    if (u < weights[i]) return last;
    u -= weights[i];
  }
  return last;
}

// Counts the consistent assignments of one component by number of mines, by a search over
// its variables (in `order`) memoised on the running sums of the numbers that are partly
// assigned: the rest of the search depends on nothing else, so a long frontier costs about
// its length times the number of distinct partial sums, not the number of assignments. The
// table then lets sample() draw an assignment with a given number of mines exactly uniformly.
class ComponentCounter {
 public:
  ComponentCounter(const MineFrontier& f, const std::vector<int>& order, std::int64_t budget, int max_mines)
      : f_(f), order_(order), budget_(budget), max_mines_(max_mines), sum_(f.constraints.size(), 0),
        open_count_(f.constraints.size(), 0) {
    const size_t n = order.size();
    std::vector<int> position(f.cells.size(), -1);
    for (size_t i = 0; i < n; ++i) position[static_cast<size_t>(order[i])] = static_cast<int>(i);
    open_.resize(n + 1);
    memo_.resize(n + 1);
    std::vector<char> mine(f.constraints.size(), 0);
    for (int v : order) {
      for (int c : f.var_constraints[static_cast<size_t>(v)]) mine[static_cast<size_t>(c)] = 1;
    }
    for (size_t c = 0; c < f.constraints.size(); ++c) {
      if (!mine[c]) continue;
      const auto& con = f.constraints[c];
      int first = static_cast<int>(n), last = -1;
      for (int i = 0; i < con.count; ++i) {
        first = std::min(first, position[static_cast<size_t>(con.vars[i])]);
        last = std::max(last, position[static_cast<size_t>(con.vars[i])]);
      }
      open_count_[c] = con.count;
      for (int d = first + 1; d <= last; ++d) open_[static_cast<size_t>(d)].push_back(static_cast<int>(c));
    }
  }

  // Fills the table; false when it would take more than the budget (or when more numbers
  // are half-filled at once than a key holds).
  bool run() {
    for (const auto& open : open_) {
      if (open.size() > kMaxOpen) return false;
    }
    root_ = solve(0);
    return !aborted_;
  }
  // counts()[m]: the number of consistent assignments with m mines.
  std::vector<double> counts() const {
    const Counts& root = pool_[static_cast<size_t>(root_)];
    std::vector<double> out(static_cast<size_t>(root.offset), 0.0);
    out.insert(out.end(), root.c.begin(), root.c.end());
    if (out.empty()) out.push_back(0.0);
    return out;
  }
  std::int64_t work() const { return work_; }

  // Draws an assignment with `mines` mines uniformly (values by position in `order`).
  std::vector<std::uint8_t> sample(int mines, util::Rng& rng) {
    const size_t n = order_.size();
    std::vector<std::uint8_t> values(n);
    int left = mines;
    for (size_t i = 0; i < n; ++i) {
      double weight[2] = {0, 0};
      for (int value = 0; value <= std::min(1, left); ++value) {
        if (assign(i, value)) {
          const Counts& next = pool_[static_cast<size_t>(lookup(i + 1))];
          const int at = left - value - next.offset;
          if (at >= 0 && static_cast<size_t>(at) < next.c.size()) weight[value] = next.c[static_cast<size_t>(at)];
        }
        unassign(i, value);
      }
      const int value = rng.uniform() * (weight[0] + weight[1]) < weight[0] ? 0 : 1;
      assign(i, value);
      values[i] = static_cast<std::uint8_t>(value);
      left -= value;
    }
    for (size_t i = n; i-- > 0;) unassign(i, values[i]);
    return values;
  }

 private:
  // Applies value to the variable at position i; false when a number is then broken.
  bool assign(size_t i, int value) {
    bool ok = true;
    for (int c : f_.var_constraints[static_cast<size_t>(order_[i])]) {
      sum_[static_cast<size_t>(c)] += value;
      --open_count_[static_cast<size_t>(c)];
      const int target = f_.constraints[static_cast<size_t>(c)].target;
      if (sum_[static_cast<size_t>(c)] > target || sum_[static_cast<size_t>(c)] + open_count_[static_cast<size_t>(c)] < target) ok = false;
    }
    return ok;
  }
  void unassign(size_t i, int value) {
    for (int c : f_.var_constraints[static_cast<size_t>(order_[i])]) {
      sum_[static_cast<size_t>(c)] -= value;
      ++open_count_[static_cast<size_t>(c)];
    }
  }
  // The running sums of the numbers open at `depth`, 4 bits each (a sum is at most 8).
  struct Key {
    std::array<std::uint64_t, 4> w{};
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      std::uint64_t h = 0x9E3779B97F4A7C15ULL;
      for (std::uint64_t x : k.w) h = (h ^ x) * 0xBF58476D1CE4E5B9ULL, h ^= h >> 29;
      return static_cast<size_t>(h);
    }
  };
  static constexpr size_t kMaxOpen = 64;
  Key key(size_t depth) const {
    Key k;
    const auto& open = open_[depth];
    for (size_t i = 0; i < open.size(); ++i) {
      k.w[i >> 4] |= static_cast<std::uint64_t>(sum_[static_cast<size_t>(open[i])]) << (4 * (i & 15));
    }
    return k;
  }
  int lookup(size_t depth) const { return memo_[depth].at(key(depth)); }

  int solve(size_t depth) {
    const Key k = key(depth);
    auto it = memo_[depth].find(k);
    if (it != memo_[depth].end()) return it->second;
    const size_t n = order_.size();
    Counts trimmed;
    if (depth == n) {
      trimmed.c.assign(1, 1.0);
    } else {
      // Children first (they may grow the pool), then their counts shifted by the value.
      int child[2] = {-1, -1};
      for (int value = 0; value < 2 && !aborted_; ++value) {
        if (assign(depth, value)) child[value] = solve(depth + 1);
        unassign(depth, value);
      }
      int lo = max_mines_ + 1, hi = -1;  // the range of mine counts that occur, [lo, hi]
      for (int value = 0; value < 2; ++value) {
        if (child[value] < 0) continue;
        const Counts& counts = pool_[static_cast<size_t>(child[value])];
        if (counts.c.empty()) continue;
        lo = std::min(lo, counts.offset + value);
        hi = std::max(hi, std::min(max_mines_, counts.offset + value + static_cast<int>(counts.c.size()) - 1));
      }
      if (hi >= lo) {
        trimmed.offset = lo;
        trimmed.c.assign(static_cast<size_t>(hi - lo + 1), 0.0);
        for (int value = 0; value < 2; ++value) {
          if (child[value] < 0) continue;
          const Counts& counts = pool_[static_cast<size_t>(child[value])];
          for (size_t m = 0; m < counts.c.size(); ++m) {
            const int at = counts.offset + value + static_cast<int>(m) - lo;
            if (at <= hi - lo) trimmed.c[static_cast<size_t>(at)] += counts.c[m];
          }
        }
      }
    }
    work_ += 1 + static_cast<std::int64_t>(trimmed.c.size());
    if (work_ > budget_) aborted_ = true;
    pool_.push_back(std::move(trimmed));
    const int index = static_cast<int>(pool_.size()) - 1;
    memo_[depth].emplace(k, index);
    return index;
  }

  const MineFrontier& f_;
  const std::vector<int>& order_;
  std::int64_t budget_, work_ = 0;
  int max_mines_;
  bool aborted_ = false;
  int root_ = -1;
  std::vector<int> sum_, open_count_;
  std::vector<std::vector<int>> open_;  // by depth: constraints with variables on both sides
  struct Counts {
    int offset = 0;         // c[i] counts the assignments with offset + i mines
    std::vector<double> c;
  };
  std::vector<std::unordered_map<Key, int, KeyHash>> memo_;
  std::vector<Counts> pool_;
};

// Finds one consistent assignment of a component by backtracking with values tried in
// random order (the Markov chain's start).
class RandomSearch {
 public:
  RandomSearch(const MineFrontier& f, const std::vector<int>& order, util::Rng& rng, std::int64_t budget)
      : f_(f), order_(order), rng_(rng), budget_(budget), sum_(f.constraints.size(), 0), open_(f.constraints.size(), 0),
        values_(order.size(), 0) {
    for (size_t c = 0; c < f.constraints.size(); ++c) open_[c] = f.constraints[c].count;
  }
  bool find(std::vector<std::uint8_t>& out) {
    if (!dfs(0)) return false;
    out = values_;
    return true;
  }

 private:
  bool dfs(size_t depth) {
    if (depth == order_.size()) return true;
    if (++nodes_ > budget_) return false;
    const int v = order_[depth], first = static_cast<int>(rng_.below(2));
    for (int i = 0; i < 2; ++i) {
      const int value = first ^ i;
      bool ok = true;
      for (int c : f_.var_constraints[static_cast<size_t>(v)]) {
        sum_[static_cast<size_t>(c)] += value;
        --open_[static_cast<size_t>(c)];
        const int target = f_.constraints[static_cast<size_t>(c)].target;
        if (sum_[static_cast<size_t>(c)] > target || sum_[static_cast<size_t>(c)] + open_[static_cast<size_t>(c)] < target) ok = false;
      }
      values_[depth] = static_cast<std::uint8_t>(value);
      if (ok && dfs(depth + 1)) return true;
      for (int c : f_.var_constraints[static_cast<size_t>(v)]) {
        sum_[static_cast<size_t>(c)] -= value;
        ++open_[static_cast<size_t>(c)];
      }
      if (nodes_ > budget_) return false;
    }
    return false;
  }

  const MineFrontier& f_;
  const std::vector<int>& order_;
  util::Rng& rng_;
  std::int64_t budget_, nodes_ = 0;
  std::vector<int> sum_, open_;
  std::vector<std::uint8_t> values_;
};

}  // namespace

MineSample sample_mines(const MineFrontier& f, const std::vector<char>& true_mines, util::Rng& rng,
                        std::int64_t budget) {
  const int num_vars = static_cast<int>(f.cells.size());
  // Components, each listed in breadth-first order from a far end (the last cell reached by
  // a first breadth-first pass): the frontier is a thin band of cells, and sweeping it from
  // one end keeps few numbers half-filled at any time, which keeps the counting tables small.
  std::vector<std::vector<int>> components;
  std::vector<int> mark(static_cast<size_t>(num_vars), -1);
  auto bfs = [&](int start, int stamp) {
    std::vector<int> order = {start};
    mark[static_cast<size_t>(start)] = stamp;
    for (size_t head = 0; head < order.size(); ++head) {
      for (int c : f.var_constraints[static_cast<size_t>(order[head])]) {
        for (int i = 0; i < f.constraints[static_cast<size_t>(c)].count; ++i) {
          const int v = f.constraints[static_cast<size_t>(c)].vars[i];
          if (mark[static_cast<size_t>(v)] != stamp) {
            mark[static_cast<size_t>(v)] = stamp;
            order.push_back(v);
          }
        }
      }
    }
    return order;
  };
  for (int start = 0; start < num_vars; ++start) {
    if (mark[static_cast<size_t>(start)] >= 0) continue;
    const int far_end = bfs(start, 2 * static_cast<int>(components.size())).back();
    components.push_back(bfs(far_end, 2 * static_cast<int>(components.size()) + 1));
  }

  const int total_mines = f.total_mines, interior = static_cast<int>(f.interior.size());
  MineSample sample;
  auto fill_interior = [&](int count) {
    std::vector<int> cells = f.interior;
    for (int i = 0; i < count; ++i) {
      const int j = i + static_cast<int>(rng.below(static_cast<std::uint32_t>(cells.size() - static_cast<size_t>(i))));
      std::swap(cells[static_cast<size_t>(i)], cells[static_cast<size_t>(j)]);
      sample.mines.push_back(cells[static_cast<size_t>(i)]);
    }
  };

  // Exact: count every component's assignments by number of mines.
  std::vector<std::unique_ptr<ComponentCounter>> counters;
  std::int64_t left = budget;
  bool complete = true;
  for (size_t k = 0; k < components.size() && complete; ++k) {
    counters.push_back(std::make_unique<ComponentCounter>(f, components[k], left, total_mines));
    complete = counters.back()->run();
    left -= counters.back()->work();
  }
  if (complete) {
    // prefix[k][t]: the number of assignments of the first k components with t mines.
    std::vector<std::vector<long double>> prefix = {{1.0L}};
    for (size_t k = 0; k < components.size(); ++k) {
      const auto& p = prefix.back();
      const auto counts = counters[k]->counts();
      std::vector<long double> next(p.size() + counts.size() - 1, 0.0L);
      for (size_t t = 0; t < p.size(); ++t) {
        if (p[t] == 0) continue;
        for (size_t m = 0; m < counts.size(); ++m) next[t + m] += p[t] * static_cast<long double>(counts[m]);
      }
      prefix.push_back(std::move(next));
    }
    const auto choose = binomials(interior);
    std::vector<long double> weight(prefix.back().size(), 0.0L);
    for (size_t t = 0; t < weight.size(); ++t) {
      const int rest = total_mines - static_cast<int>(t);
      if (rest >= 0 && rest <= interior) weight[t] = prefix.back()[t] * choose[static_cast<size_t>(rest)];
    }
    int t = draw(weight, rng);
    if (t >= 0) {
      fill_interior(total_mines - t);
      for (size_t k = components.size(); k-- > 0;) {
        const auto counts = counters[k]->counts();
        std::vector<long double> w(counts.size(), 0.0L);
        for (size_t m = 0; m < w.size(); ++m) {
          if (static_cast<int>(m) <= t && static_cast<size_t>(t) - m < prefix[k].size()) {
            w[m] = prefix[k][static_cast<size_t>(t) - m] * static_cast<long double>(counts[m]);
          }
        }
        const int m = draw(w, rng);
        const auto values = counters[k]->sample(m, rng);
        for (size_t i = 0; i < values.size(); ++i) {
          if (values[i]) sample.mines.push_back(f.cells[static_cast<size_t>(components[k][i])]);
        }
        t -= m;
      }
      return sample;
    }
  }

  // Fallback: block Gibbs sampling of the frontier (see the header), then the interior.
  sample.exact = false;
  std::vector<std::uint8_t> value(static_cast<size_t>(num_vars), 0);
  int frontier_mines = 0;
  bool ok = true;
  for (size_t k = 0; k < components.size() && ok; ++k) {
    RandomSearch search(f, components[k], rng, 20000);
    std::vector<std::uint8_t> values;
    ok = search.find(values);
    for (size_t i = 0; ok && i < values.size(); ++i) {
      value[static_cast<size_t>(components[k][i])] = values[i];
      frontier_mines += values[i];
    }
  }
  if (!ok || frontier_mines > total_mines || total_mines - frontier_mines > interior) {
    frontier_mines = 0;  // start from the true placement instead
    for (int v = 0; v < num_vars; ++v) {
      value[static_cast<size_t>(v)] = true_mines[static_cast<size_t>(f.cells[static_cast<size_t>(v)])] ? 1 : 0;
      frontier_mines += value[static_cast<size_t>(v)];
    }
  }
  std::vector<int> sum(f.constraints.size(), 0), open(f.constraints.size(), 0);
  for (size_t c = 0; c < f.constraints.size(); ++c) {
    for (int i = 0; i < f.constraints[c].count; ++i) sum[c] += value[static_cast<size_t>(f.constraints[c].vars[i])];
  }
  const auto choose = binomials(interior);
  const int columns = f.columns, rows = f.rows;
  constexpr int kMaxBlock = 12;
  std::vector<int> block;
  std::vector<std::pair<std::uint32_t, int>> options;  // (block values as bits, mines)
  std::vector<long double> weights;
  const std::int64_t steps = 5 * static_cast<std::int64_t>(num_vars);
  for (std::int64_t step = 0; step < steps; ++step) {
    // The block: frontier cells within two steps of a random frontier cell, nearest first.
    const int centre = f.cells[rng.below(static_cast<std::uint32_t>(num_vars))];
    const int cy = centre / columns, cx = centre % columns;
    block.clear();
    for (int radius = 0; radius <= 2; ++radius) {
      for (int y = std::max(0, cy - radius); y <= std::min(rows - 1, cy + radius); ++y) {
        for (int x = std::max(0, cx - radius); x <= std::min(columns - 1, cx + radius); ++x) {
          if (std::max(std::abs(y - cy), std::abs(x - cx)) != radius) continue;
          const int v = f.var_of[static_cast<size_t>(y * columns + x)];
          if (v >= 0 && static_cast<int>(block.size()) < kMaxBlock) block.push_back(v);
        }
      }
    }
    int old_mines = 0;
    for (int v : block) {
      old_mines += value[static_cast<size_t>(v)];
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        sum[static_cast<size_t>(c)] -= value[static_cast<size_t>(v)];
        ++open[static_cast<size_t>(c)];
      }
    }
    // Every assignment of the block consistent with the rest, by backtracking.
    options.clear();
    auto fits = [&](int v) {
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        const int target = f.constraints[static_cast<size_t>(c)].target;
        if (sum[static_cast<size_t>(c)] > target || sum[static_cast<size_t>(c)] + open[static_cast<size_t>(c)] < target) return false;
      }
      return true;
    };
    auto place = [&](int v, int x, int sign) {
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        sum[static_cast<size_t>(c)] += sign * x;
        open[static_cast<size_t>(c)] -= sign;
      }
    };
    auto search = [&](auto&& self, size_t i, std::uint32_t bits, int mines) -> void {
      if (i == block.size()) {
        options.emplace_back(bits, mines);
        return;
      }
      const int v = block[i];
      for (int x = 0; x < 2; ++x) {
        place(v, x, 1);
        if (fits(v)) self(self, i + 1, bits | static_cast<std::uint32_t>(x) << i, mines + x);
        place(v, x, -1);
      }
    };
    search(search, 0, 0, 0);
    weights.assign(options.size(), 0.0L);
    for (size_t o = 0; o < options.size(); ++o) {
      const int rest = total_mines - (frontier_mines - old_mines + options[o].second);
      if (rest >= 0 && rest <= interior) weights[o] = choose[static_cast<size_t>(rest)];
    }
    const int pick = draw(weights, rng);  // the current assignment is always an option
    const std::uint32_t bits = options[static_cast<size_t>(pick)].first;
    for (size_t i = 0; i < block.size(); ++i) {
      const int v = block[i];
      value[static_cast<size_t>(v)] = static_cast<std::uint8_t>(bits >> i & 1);
      for (int c : f.var_constraints[static_cast<size_t>(v)]) {
        sum[static_cast<size_t>(c)] += value[static_cast<size_t>(v)];
        --open[static_cast<size_t>(c)];
      }
    }
    frontier_mines += options[static_cast<size_t>(pick)].second - old_mines;
  }
  for (int v = 0; v < num_vars; ++v) {
    if (value[static_cast<size_t>(v)]) sample.mines.push_back(f.cells[static_cast<size_t>(v)]);
  }
  fill_interior(total_mines - frontier_mines);
  return sample;
}

}  // namespace pz::games
