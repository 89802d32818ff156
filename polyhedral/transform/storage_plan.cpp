#include "polyhedral/transform/storage_plan.h"

#include <algorithm>
#include <stdexcept>

namespace pz::poly {

const StoragePlacement& StoragePlan::at(const std::string& array) const {
  for (const StoragePlacement& p : placements)
    if (p.array == array) return p;
  throw std::out_of_range("storage plan: no placement for " + array);
}

namespace {

constexpr int kNever = -1;

struct LiveRange {
  int first_write = kNever, first_read = kNever, last_read = kNever;
};

// Per array, the programs that first write, first read and last read it.
std::map<std::string, LiveRange> live_ranges(const std::vector<const Scop*>& programs) {
  std::map<std::string, LiveRange> ranges;
  for (int p = 0; p < static_cast<int>(programs.size()); ++p)
    for (const Statement& s : programs[static_cast<std::size_t>(p)]->statements)
      for (const Access& a : s.accesses) {
        LiveRange& r = ranges[a.array];
        int& first = a.write ? r.first_write : r.first_read;
        if (first == kNever) first = p;
        if (!a.write) r.last_read = p;
      }
  return ranges;
}

bool padded(const ArrayLayout& l) {
  for (std::size_t d = 0; d < l.before.size(); ++d)
    if (l.before[d] || l.after[d]) return true;
  return false;
}

}  // namespace

StoragePlan plan_storage(const std::vector<const Scop*>& programs, const std::map<std::string, ArrayLayout>& layouts,
                         const std::set<std::string>& temporaries, const StorageOptions& options) {
  const std::map<std::string, LiveRange> ranges = live_ranges(programs);
  std::vector<BufferLifetime> buffers;
  for (const std::string& name : temporaries) {
    auto layout = layouts.find(name);
    if (layout == layouts.end()) throw std::invalid_argument("storage plan: temporary " + name + " has no layout");
    auto range = ranges.find(name);
    if (range == ranges.end() || range->second.first_write == kNever)
      throw std::invalid_argument("storage plan: temporary " + name + " is never written by the programs");
    const LiveRange& r = range->second;
    const ArrayLayout& l = layout->second;
    BufferLifetime b;
    b.name = name;
    const bool rows = !l.order.empty() && l.storage_extent(l.order[0]) < 0;
    b.elements = rows ? l.row_elements() * static_cast<std::size_t>(std::max(1LL, options.parameter_rows)) : l.elements();
    b.first = r.first_read != kNever && r.first_read < r.first_write ? 0 : r.first_write;
    b.last = std::max(r.first_write, r.last_read);
    // Padding is never written and the arena serves every run of the sequence, so a
    // region that holds a padded array holds only arrays of exactly its layout.
    b.padded = padded(l) ? &l : nullptr;
    buffers.push_back(std::move(b));
  }
  return place_buffers(std::move(buffers), options.alignment);
}

StoragePlan place_buffers(std::vector<BufferLifetime> buffers, std::size_t alignment) {
  std::stable_sort(buffers.begin(), buffers.end(), [](const BufferLifetime& a, const BufferLifetime& b) { return a.first < b.first; });
  const std::size_t align = std::max<std::size_t>(1, alignment);
  auto aligned = [&](std::size_t n) { return (n + align - 1) / align * align; };
  struct Region {
    std::size_t offset, elements;
    const ArrayLayout* padded;
    int free_after;
  };
  StoragePlan plan;
  std::vector<Region> regions;
  for (const BufferLifetime& b : buffers) {
    plan.unshared_elements += aligned(b.elements);
    Region* reuse = nullptr;
    for (Region& r : regions) {
      if (r.free_after >= b.first) continue;
      const bool fits = b.padded ? r.padded && r.elements == b.elements && r.padded->same_storage(*b.padded)
                                 : !r.padded && r.elements >= b.elements;
      if (fits && (!reuse || r.elements < reuse->elements)) reuse = &r;
    }
    if (!reuse) {
      regions.push_back(Region{plan.elements, b.elements, b.padded, kNever});
      plan.elements += aligned(b.elements);
      reuse = &regions.back();
    }
    reuse->free_after = b.last;
    plan.placements.push_back({b.name, reuse->offset, b.elements, b.first, b.last});
  }
  return plan;
}

}  // namespace pz::poly
