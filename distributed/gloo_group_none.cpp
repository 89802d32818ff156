// connect_learner_group in a build without Gloo (libgloo-dev was not found): a group of
// several learners is refused with what to install.
#include "distributed/learner_group.h"
#include "util/error.h"

namespace pz::distributed {

bool learner_groups_supported() { return false; }

std::unique_ptr<nn::DataParallelGroup> connect_learner_group(const LearnerGroupSpec& spec, const std::string&,
                                                             std::chrono::milliseconds) {
  throw util::UsageError("learner " + spec.describe() +
                         ": this polyzero was built without Gloo, so a run has one learner; install libgloo-dev "
                         "(scripts/setup.sh) and build again for several (--world-size)");
}

}  // namespace pz::distributed
