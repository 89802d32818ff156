#include "polyhedral/storage_plan.h"

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

}  // namespace

StoragePlan plan_storage(const std::vector<const Scop*>& programs, const std::map<std::string, ArrayLayout>& layouts,
                         const std::set<std::string>& temporaries, const StorageOptions& options) {
  const std::map<std::string, LiveRange> ranges = live_ranges(programs);
  StoragePlan plan;
  for (const std::string& name : temporaries) {
    auto layout = layouts.find(name);
    if (layout == layouts.end()) throw std::invalid_argument("storage plan: temporary " + name + " has no layout");
    auto range = ranges.find(name);
    if (range == ranges.end() || range->second.first_write == kNever)
      throw std::invalid_argument("storage plan: temporary " + name + " is never written by the programs");
    const LiveRange& r = range->second;
    StoragePlacement p;
    p.array = name;
    const bool rows = !layout->second.order.empty() && layout->second.storage_extent(layout->second.order[0]) < 0;
    p.elements = rows ? layout->second.row_elements() * static_cast<std::size_t>(std::max(1LL, options.parameter_rows))
                      : layout->second.elements();
    p.first = r.first_read != kNever && r.first_read < r.first_write ? 0 : r.first_write;
    p.last = std::max(r.first_write, r.last_read);
    plan.placements.push_back(p);
  }
  std::stable_sort(plan.placements.begin(), plan.placements.end(),
                   [](const StoragePlacement& a, const StoragePlacement& b) { return a.first < b.first; });
  const std::size_t align = std::max<std::size_t>(1, options.alignment);
  auto aligned = [&](std::size_t n) { return (n + align - 1) / align * align; };
  // Padding is never written and the arena serves every run of the sequence, so a region
  // that holds a padded array holds only arrays of exactly its layout; the other regions
  // take any array without padding that fits (the smallest such dead region).
  struct Region {
    std::size_t offset, elements;
    const ArrayLayout* layout;
    int free_after;
  };
  auto padded = [](const ArrayLayout& l) {
    for (std::size_t d = 0; d < l.before.size(); ++d)
      if (l.before[d] || l.after[d]) return true;
    return false;
  };
  std::vector<Region> regions;
  for (StoragePlacement& p : plan.placements) {
    const ArrayLayout& layout = layouts.at(p.array);
    plan.unshared_elements += aligned(p.elements);
    Region* reuse = nullptr;
    for (Region& r : regions) {
      if (r.free_after >= p.first) continue;
      const bool fits = padded(layout) ? r.elements == p.elements && r.layout->same_storage(layout)
                                       : !padded(*r.layout) && r.elements >= p.elements;
      if (fits && (!reuse || r.elements < reuse->elements)) reuse = &r;
    }
    if (!reuse) {
      regions.push_back(Region{plan.elements, p.elements, &layout, kNever});
      plan.elements += aligned(p.elements);
      reuse = &regions.back();
    }
    p.offset = reuse->offset;
    reuse->free_after = p.last;
  }
  return plan;
}

}  // namespace pz::poly
