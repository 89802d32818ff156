// polyzero lr --config SCHED.json --steps N [--lr BASE] [--json] [--plot OUT.svg]:
// prints (and plots) a learning-rate schedule, lr(t) for t = 0..N-1 (optim/scheduler_factory.h).
#include <nlohmann/json.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "apps/commands.h"
#include "optim/scheduler_factory.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_text.h"
#include "util/spec.h"
#include "util/svg_plot.h"

namespace pz::apps {

namespace {

std::string read_file(const std::string& path, const std::string& what) {
  try {
    return util::read_text_file(path);
  } catch (const util::UsageError& e) {
    throw util::UsageError("cannot read " + what + ": " + e.what());
  }
}

// --config takes a file, or the JSON itself when it starts with '{'.
nlohmann::json load_config(const std::string& arg) {
  const std::string trimmed = util::trim(arg);
  const bool inline_json = !trimmed.empty() && trimmed[0] == '{';
  const std::string text = inline_json ? trimmed : read_file(arg, "--config");
  return util::parse_json(text, inline_json ? std::string("--config") : "--config '" + arg.substr(0, 200) + "'");
}

std::vector<double> parse_numbers(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::string token;
  std::istringstream in(text);
  while (in >> token) {
    for (auto& c : token)
      if (c == ',') c = ' ';
    std::istringstream parts(token);
    std::string part;
    while (parts >> part) {
      auto v = util::parse_double(part);
      if (!v) throw util::UsageError(what + ": '" + part + "' is not a number");
      out.push_back(*v);
    }
  }
  return out;
}

// Shortest text that reads back as the same double.
std::string shortest(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : util::format_double(v);
}

// The scheduler registry as a table (or JSON), for `lr --list`.
void print_scheduler_types(bool json) {
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : optim::scheduler_registry())
      out.push_back({{"type", e.name}, {"pytorch", e.pytorch}, {"fields", e.fields}});
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << "type (PyTorch name): fields (default)\n";
  for (const auto& e : optim::scheduler_registry())
    std::cout << "  " << e.name << " (" << e.pytorch << "): " << e.fields << "\n";
  std::cout << "Any config may add \"chainable\": bool and \"warmup\": {\"type\": linear|constant|exponential, "
               "\"steps\": N, ...}.\n";
}

}  // namespace

void add_lr_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("lr", "print or plot a learning-rate schedule: lr(t) for t = 0..N-1");
  struct Args {
    std::string config;
    std::int64_t steps = 0;
    std::string base_lr = "1";
    bool json = false;
    std::string plot;
    bool log_y = false;
    std::string metrics;
    bool list = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--config,-c", args->config,
                  "scheduler config: a JSON file, or the JSON itself, e.g. "
                  "'{\"type\":\"poly\",\"total_iters\":100,\"power\":0.9,\"warmup\":{\"type\":\"linear\",\"steps\":10}}' (required)");
  cmd->add_option("--steps,-n", args->steps, "number of values: t = 0..N-1 (required)")->check(CLI::Range(1, 10000000));
  cmd->add_option("--lr", args->base_lr,
                  "base lr of the param group (a list \"0.1,0.01\" for several groups); the default 1 prints the "
                  "factor applied to the base lr")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, R"(print {"lr":[...]} (several groups: also "lr_groups":[[...],...]))");
  cmd->add_option("--plot", args->plot, "also write the curve as an SVG file");
  cmd->add_flag("--log-y", args->log_y, "plot the lr on a log scale");
  cmd->add_option("--metrics", args->metrics,
                  "for reduce_on_plateau: a file of N-1 metric values (the metric after each step), "
                  "separated by spaces, commas or newlines");
  cmd->add_flag("--list", args->list, "list the scheduler types with their fields and defaults, and exit");
  cmd->callback([args] {
    if (args->list) return print_scheduler_types(args->json);
    if (args->config.empty()) throw util::UsageError("lr: --config is required (--list shows the scheduler types)");
    if (args->steps == 0) throw util::UsageError("lr: --steps is required: how many values, t = 0..N-1");
    const nlohmann::json config = load_config(args->config);
    const std::vector<double> base = parse_numbers(args->base_lr, "--lr");
    if (base.empty()) throw util::UsageError("--lr: give at least one base learning rate");
    std::vector<double> metrics;
    if (!args->metrics.empty()) metrics = parse_numbers(read_file(args->metrics, "--metrics"), "--metrics");
    const auto table = optim::lr_table(config, base, args->steps, metrics);

    const std::size_t groups = base.size();
    std::vector<std::vector<double>> by_group(groups);
    for (const auto& row : table)
      for (std::size_t g = 0; g < groups; ++g) by_group[g].push_back(row[g]);

    if (args->json) {
      nlohmann::json out{{"lr", by_group[0]}};
      if (groups > 1) out["lr_groups"] = by_group;
      std::cout << out.dump() << "\n";
    } else {
      std::cout << "step lr" << (groups > 1 ? " (one column per param group)" : "") << "\n";
      for (std::size_t t = 0; t < table.size(); ++t) {
        std::cout << t;
        for (double v : table[t]) std::cout << ' ' << shortest(v);
        std::cout << "\n";
      }
    }

    if (!args->plot.empty()) {
      std::vector<util::PlotSeries> series;
      for (std::size_t g = 0; g < groups; ++g)
        series.push_back({groups > 1 ? "group " + std::to_string(g) : "lr", {}, by_group[g]});
      std::string title = config.dump();
      if (title.size() > 100) title = title.substr(0, 97) + "...";
      const std::string svg = util::svg_line_plot(series, {title, "step", "learning rate", 900, 500, args->log_y});
      std::ofstream out(args->plot, std::ios::binary);
      if (!out || !(out << svg) || !out.flush())
        throw util::UsageError("cannot write --plot '" + args->plot + "': " + std::strerror(errno));
      std::cerr << "wrote " << args->plot << "\n";
    }
  });
}

}  // namespace pz::apps
