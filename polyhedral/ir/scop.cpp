#include "polyhedral/ir/scop.h"

#include <algorithm>
#include <sstream>

#include "polyhedral/ir/isl_context.h"

namespace pz::poly {

std::string typeof_element(const std::string& name, int rank) {
  std::string element = name;
  for (int k = 0; k < rank; ++k) element += "[0]";
  return "__typeof__(" + element + ")";
}

std::string spelled_type(const std::string& declared, const std::string& name, int rank) {
  return declared.empty() ? typeof_element(name, rank) : declared;
}

bool is_named_type(const std::string& type) { return !type.empty() && type.rfind("__typeof__", 0) != 0; }

int c_type_bytes(const std::string& type) {
  if (type == "char" || type == "signed char" || type == "unsigned char" || type == "_Bool") return 1;
  if (type == "short" || type == "unsigned short" || type == "short int" || type == "unsigned short int" ||
      type == "_Float16")
    return 2;
  if (type == "float" || type == "int" || type == "unsigned" || type == "unsigned int" || type == "signed" ||
      type == "signed int")
    return 4;
  if (type == "long double") return 16;
  return 8;  // double, long, long long, and types it cannot name
}

int Array::element_bytes() const { return c_type_bytes(element_type); }

std::string Statement::to_c(const NameMap& rename) const {
  std::string s = pz::poly::to_c(*lhs, rename);
  s += ' ';
  s += op;
  if (rhs) {
    s += ' ';
    s += pz::poly::to_c(*rhs, rename);
  }
  return s;
}

namespace {

isl::union_map collect(const Scop& scop, bool writes) {
  isl::union_map all = isl::union_map::empty(scop.ctx);
  for (const auto& s : scop.statements)
    for (const auto& a : s.accesses)
      if (a.write == writes) all = all.unite(isl::union_map(a.relation));
  return all.coalesce();
}

}  // namespace

isl::union_set Scop::domain() const {
  isl::union_set d = isl::union_set::empty(ctx);
  for (const auto& s : statements) d = d.unite(isl::union_set(s.domain));
  return d;
}

isl::union_map Scop::reads() const { return collect(*this, false); }
isl::union_map Scop::writes() const { return collect(*this, true); }

const Array* Scop::array(const std::string& name) const {
  for (const auto& a : arrays)
    if (a.name == name) return &a;
  return nullptr;
}

const Statement* Scop::statement(const std::string& name) const {
  for (const auto& s : statements)
    if (s.name == name) return &s;
  return nullptr;
}

std::string Scop::to_string() const {
  std::ostringstream out;
  out << "parameters:";
  for (const auto& p : params) {
    out << " " << p;
    if (auto it = param_values.find(p); it != param_values.end()) out << "=" << it->second;
  }
  out << "\narrays:";
  for (const auto& a : arrays) out << " " << a.element_type << " " << a.name << "[" << a.rank << "-d]";
  out << "\n";
  for (const auto& s : statements) {
    out << s.name << ": " << s.to_c() << "\n  domain: " << isl_str(s.domain) << "\n";
    for (const auto& a : s.accesses) out << "  " << (a.write ? "write: " : "read:  ") << isl_str(a.relation) << "\n";
  }
  return out.str();
}

std::vector<long long> constant_extents(const isl::set& domain) {
  const int n = static_cast<int>(isl_set_dim(domain.get(), isl_dim_set));
  std::vector<long long> out(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    isl_set* member = isl_set_project_out(domain.copy(), isl_dim_set, static_cast<unsigned>(i + 1), static_cast<unsigned>(n - i - 1));
    member = isl_set_project_out(member, isl_dim_set, 0, static_cast<unsigned>(i));
    isl_fixed_box* box = isl_set_get_simple_fixed_box_hull(member);
    if (box && isl_fixed_box_is_valid(box) == isl_bool_true) {
      isl_multi_val* size = isl_fixed_box_get_size(box);
      isl_val* v = isl_multi_val_get_val(size, 0);
      out[static_cast<std::size_t>(i)] = isl_val_get_num_si(v);
      isl_val_free(v);
      isl_multi_val_free(size);
    }
    isl_fixed_box_free(box);
    isl_set_free(member);
  }
  return out;
}


Scop restrict_scop(const Scop& scop, const std::vector<std::string>& statements) {
  Scop out = scop;
  out.statements.clear();
  isl::union_set kept;
  for (const auto& s : scop.statements)
    if (std::count(statements.begin(), statements.end(), s.name)) {
      out.statements.push_back(s);
      kept = kept.is_null() ? isl::union_set(s.domain) : kept.unite(isl::union_set(s.domain));
    }
  out.schedule = isl::manage(isl_schedule_intersect_domain(scop.schedule.copy(), kept.release()));
  out.outer_iterators.clear();
  return out;
}

}  // namespace pz::poly
