// connect_learner_group over c10d (Debian's libtorch_cpu has ProcessGroupGloo and TCPStore;
// their headers include <gloo/...> from libgloo-dev). Compiled with USE_C10D_GLOO, which the
// header requires; built only where CMake found Gloo (else gloo_group_none.cpp).
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "distributed/learner_group.h"
#include "distributed/redis_client.h"
#include "util/error.h"

namespace pz::distributed {

namespace {

std::string seconds_text(std::chrono::milliseconds t) { return std::to_string(t.count() / 1000) + " s"; }

class GlooGroup final : public nn::DataParallelGroup {
 public:
  GlooGroup(const LearnerGroupSpec& spec, const std::string& run, std::chrono::milliseconds timeout)
      : spec_(spec), timeout_(timeout) {
    const std::string where = spec.master_host + ":" + std::to_string(spec.master_port);
    c10::intrusive_ptr<c10d::Store> store;
    try {
      c10d::TCPStoreOptions o;
      o.port = static_cast<std::uint16_t>(spec.master_port);
      o.isServer = spec.rank == 0;
      o.numWorkers = static_cast<std::size_t>(spec.world_size);
      o.waitWorkers = false;  // the process group's rendezvous below waits, under the timeout
      o.timeout = timeout;
      store = c10::make_intrusive<c10d::TCPStore>(spec.master_host, o);
    } catch (const std::exception& e) {
      throw nn::GroupError(
          "learner " + spec.describe() + ": " +
          (spec.rank == 0 ? "cannot listen on port " + std::to_string(spec.master_port) + " (" + first_line(e.what()) +
                                "); choose a free port for --master (or MASTER_PORT), the same for every learner"
                          : "cannot reach rank 0 at " + where + " within " + seconds_text(timeout) + " (" +
                                first_line(e.what()) + "); is rank 0 started, and is --master its address?"));
    }
    // The run's name, so that learners of two runs given the same master fail clearly.
    try {
      if (spec.rank == 0) {
        store->set("pz-run", std::vector<std::uint8_t>(run.begin(), run.end()));
      } else {
        const auto got = store->get("pz-run");
        const std::string theirs(got.begin(), got.end());
        if (theirs != run) {
          throw util::UsageError("learner " + spec.describe() + ": the master at " + where + " is rank 0 of run '" +
                                 theirs + "', not of run '" + run + "': give each run its own --master port");
        }
      }
      auto prefixed = c10::make_intrusive<c10d::PrefixStore>("pz/" + run, store);
      auto options = c10d::ProcessGroupGloo::Options::create(timeout);
      options->devices.push_back(make_device(spec));
      options->threads = 1;  // one collective at a time: the learner waits for each
      group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, spec.rank, spec.world_size, options);
    } catch (const util::UsageError&) {
      throw;
    } catch (const std::exception& e) {
      throw nn::GroupError("learner " + spec.describe() + ": the learners did not all join within " +
                           seconds_text(timeout) + " (" + first_line(e.what()) + "); start all " +
                           std::to_string(spec.world_size) + " with the same --master, --world-size and --run");
    }
  }

  int rank() const override { return spec_.rank; }
  int world_size() const override { return spec_.world_size; }

  void all_reduce_sum(at::Tensor& tensor) override {
    std::vector<at::Tensor> tensors{tensor};
    run("all-reduce", [&] { return group_->allreduce(tensors); });
  }

  void broadcast(at::Tensor& tensor) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions o;
    o.rootRank = 0;
    run("broadcast", [&] { return group_->broadcast(tensors, o); });
  }

  void all_reduce_sum(double* values, std::size_t n) override {
    at::Tensor t = torch::from_blob(values, {static_cast<std::int64_t>(n)}, torch::kFloat64);
    all_reduce_sum(t);
  }

  void broadcast(double* values, std::size_t n) override {
    at::Tensor t = torch::from_blob(values, {static_cast<std::int64_t>(n)}, torch::kFloat64);
    broadcast(t);
  }

 private:
  static std::string first_line(const std::string& s) {
    // c10 errors carry a stack trace after the first line.
    const auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
  }

  static std::shared_ptr<::gloo::transport::Device> make_device(const LearnerGroupSpec& spec) {
    if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname != nullptr && *ifname != '\0') {
      return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
    }
    if (is_loopback_host(spec.master_host)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
    return c10d::ProcessGroupGloo::createDefaultDevice();
  }

  template <class Start>
  void run(const char* what, Start start) {
    if (failed_) throw nn::GroupError(failure_);
    try {
      start()->wait();
    } catch (const std::exception& e) {
      failed_ = true;
      failure_ = "learner " + spec_.describe() + ": the " + what + " with the other learners failed (" +
                 first_line(e.what()) + "): a learner exited, was killed or did not answer within " +
                 seconds_text(timeout_) +
                 ". All learners of a run stop together; start them all again with the same commands: they resume "
                 "from the newest checkpoint they all hold";
      throw nn::GroupError(failure_);
    }
  }

  LearnerGroupSpec spec_;
  std::chrono::milliseconds timeout_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
  bool failed_ = false;
  std::string failure_;
};

}  // namespace

bool learner_groups_supported() { return true; }

std::unique_ptr<nn::DataParallelGroup> connect_learner_group(const LearnerGroupSpec& spec, const std::string& run,
                                                             std::chrono::milliseconds timeout) {
  return std::make_unique<GlooGroup>(spec, run, timeout);
}

}  // namespace pz::distributed
