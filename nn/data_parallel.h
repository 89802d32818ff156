// Several learner processes training one network, data-parallel, the way PyTorch's
// DistributedDataParallel does it (Li et al., "PyTorch Distributed", VLDB 2020): every rank
// holds the whole model, computes gradients on its own minibatch, the gradients are averaged
// across ranks (one all-reduce per step, between backward and the optimiser step), and every
// rank takes the same optimiser step, so the weights stay identical without ever being sent
// again. Rank 0's weights and optimiser state are broadcast once at the start and on resume.
//
// A DataParallelGroup is the transport (distributed/gloo_group.h: c10d's ProcessGroupGloo over a
// TCPStore rendezvous); nn/ only uses this interface, so a single-process run has no group,
// never calls any of it and pays nothing. Every call is collective: all ranks make the same
// calls in the same order with tensors of the same shape, or the group fails. A rank that is
// gone (killed, crashed) or silent for longer than the group's timeout makes the call throw
// GroupError on the others: never a hang.
//
// The helpers below build the few agreements the trainer needs on top of all_reduce_sum
// (learner.h and trainer.cpp say what each step agrees on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace at {
class Tensor;
}

namespace pz::nn {

// A collective that failed: a peer closed its connection, or none came within the timeout.
// The message names the operation, this rank and what to do.
class GroupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DataParallelGroup {
 public:
  virtual ~DataParallelGroup() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // Sums a contiguous CPU tensor (float32 or float64) over the ranks, in place. Every rank
  // ends with the same bytes.
  virtual void all_reduce_sum(at::Tensor& tensor) = 0;
  // Replaces a contiguous CPU tensor with rank 0's, in place.
  virtual void broadcast(at::Tensor& tensor) = 0;
  // The same on `n` float64 values (the trainer's agreements, without LibTorch's types).
  virtual void all_reduce_sum(double* values, std::size_t n) = 0;
  virtual void broadcast(double* values, std::size_t n) = 0;
};

// The element-wise sums of `values` over the ranks (float64).
std::vector<double> all_reduce_sum(DataParallelGroup& group, const std::vector<double>& values);

// Every rank's `values` (at most `width` of them; shorter ones padded with `pad`), indexed
// by rank.
std::vector<std::vector<double>> all_gather(DataParallelGroup& group, const std::vector<double>& values,
                                            std::size_t width, double pad);

// Rank 0's `values` on every rank (same length on all).
std::vector<double> broadcast(DataParallelGroup& group, const std::vector<double>& values);

}  // namespace pz::nn
