// Storage planning for a sequence of programs that run one after another (a network's
// layers): the arrays that exist only between them (temporaries) share one arena.
//
// An array is live from the first program that writes it to the last program that reads it
// (the live range of register allocation, at program granularity, read off the programs'
// access relations); one read before any write makes it live from the first program. Arrays
// are placed in the order they become live, each in a region whose arrays are all dead
// before it is first written, else in a new region at the end of the arena. Padding is
// never written (layout.h) and the arena serves every run of the sequence, so a region that
// holds a padded array holds only arrays of exactly its layout; an array without padding
// takes the smallest dead region without padding that holds it.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "polyhedral/ir/scop.h"
#include "polyhedral/transform/layout.h"

namespace pz::poly {

struct StoragePlacement {
  std::string array;
  std::size_t offset = 0;    // in elements from the start of the arena
  std::size_t elements = 0;  // the array's storage, padding included
  int first = 0, last = 0;   // live range: program indices
};

struct StoragePlan {
  std::vector<StoragePlacement> placements;  // in order of first write
  std::size_t elements = 0;                  // the arena
  std::size_t unshared_elements = 0;         // one region per array: what sharing saves
  const StoragePlacement& at(const std::string& array) const;
};

struct StorageOptions {
  long long parameter_rows = 1;  // the extent of a parameter-sized first dimension (the batch)
  std::size_t alignment = 16;    // every region starts at a multiple of this many elements
};

// Places the `temporaries` (arrays with a layout in `layouts`) of `programs`, in order.
// Throws std::invalid_argument for a temporary without a layout or never written.
StoragePlan plan_storage(const std::vector<const Scop*>& programs, const std::map<std::string, ArrayLayout>& layouts,
                         const std::set<std::string>& temporaries, const StorageOptions& options = {});

// A buffer whose live range is known by other means (the poly learner's step, whose
// tensors outlive one program: nn/poly/training_memory.h): `padded`, when set, is the
// layout of a padded array (its region then holds only arrays of exactly that layout).
struct BufferLifetime {
  std::string name;
  std::size_t elements = 0;
  int first = 0, last = 0;  // the steps that first write and last read it
  const ArrayLayout* padded = nullptr;
};

// The placement plan_storage makes, for buffers given with their live ranges: in order of
// first write, each in the smallest dead region that fits, else a new one at the end.
StoragePlan place_buffers(std::vector<BufferLifetime> buffers, std::size_t alignment = 16);

}  // namespace pz::poly
