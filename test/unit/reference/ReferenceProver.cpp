//===- ReferenceProver.cpp - A deliberately simple spec §3-§5 prover ------===//
//
// Written from the spec text alone, favouring obviousness over speed: no
// indices, no early exits, no folded weights. See the header.
//
//===----------------------------------------------------------------------===//
#include "reference/ReferenceProver.h"

#include "support/Fail.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace proofc::reference {
namespace {

using Subst = std::map<int, int>; // variable -> term

int resolve(const Subst &theta, int term) {
  while (term < 0) {
    auto it = theta.find(term);
    if (it == theta.end())
      break;
    term = it->second;
  }
  return term;
}

/// Ordinary first-order unification of two terms under theta.
bool unifyTerms(Subst &theta, int x, int y) {
  x = resolve(theta, x);
  y = resolve(theta, y);
  if (x == y)
    return true;
  if (x < 0) {
    theta[x] = y;
    return true;
  }
  if (y < 0) {
    theta[y] = x;
    return true;
  }
  return false;
}

State applySubst(const Subst &theta, const State &atoms) {
  State out;
  for (const Atom &a : atoms)
    out.push_back({a.p, resolve(theta, a.a), resolve(theta, a.b)});
  return out;
}

double dot(const std::vector<double> &x, const std::vector<double> &y) {
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i)
    s += x[i] * y[i];
  return s;
}

} // namespace

State canonical(const State &state) {
  std::map<int, int> names;
  auto rename = [&](int t) {
    if (t >= 0)
      return t;
    if (!names.count(t)) {
      int next = -static_cast<int>(names.size()) - 1;
      names[t] = next;
    }
    return names[t];
  };
  State out;
  for (const Atom &a : state) {
    int x = rename(a.a);
    int y = rename(a.b);
    out.push_back({a.p, x, y});
  }
  return out;
}

Choice choose(const std::vector<double> &logits) {
  Choice c;
  if (logits.size() == 1)
    return c;
  double m = *std::max_element(logits.begin(), logits.end());
  double threshold = m - 1e-5 * std::max(1.0, std::fabs(m));
  for (size_t i = 0; i < logits.size(); ++i)
    if (logits[i] >= threshold) {
      c.index = static_cast<int>(i);
      break;
    }
  double sum = 0;
  for (double l : logits)
    sum += std::exp(l - m);
  c.logp = logits[c.index] - (m + std::log(sum));
  return c;
}

ReferenceProver::ReferenceProver(const Dataset &dataset,
                                 const TensorMap *weights,
                                 const ShapeParams &shape,
                                 bool factsIncludeValid)
    : numEntities_(dataset.numEntities()),
      numRelations_(dataset.numRelations()), shape_(shape),
      rules_(dataset.rules), weights_(weights) {
  std::set<std::tuple<int, int, int>> facts;
  for (const Triple &t : dataset.train)
    facts.insert({t.r, t.h, t.t});
  if (factsIncludeValid)
    for (const Triple &t : dataset.valid)
      facts.insert({t.r, t.h, t.t});
  for (const auto &[p, s, o] : facts)
    facts_.push_back({p, s, o});
  if (!weights)
    return;
  const int d = shape.d;
  for (int l = 0; l < shape.L; ++l) {
    const std::string prefix = "mlp." + std::to_string(l);
    Layer layer;
    std::vector<double> w = values(prefix + ".weight");
    layer.weightT.resize(w.size());
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < d; ++i)
        layer.weightT[i * d + j] = w.at(j * d + i);
    layer.bias = values(prefix + ".bias");
    layer.lnWeight = values(prefix + ".ln.weight");
    layer.lnBias = values(prefix + ".ln.bias");
    layers_.push_back(layer);
  }
}

std::vector<double> ReferenceProver::values(const std::string &tensor) const {
  const Tensor &t = weights_->at(tensor);
  return std::vector<double>(t.data.begin(), t.data.end());
}

std::vector<State> ReferenceProver::derive(const State &goals,
                                           const Triple &c) const {
  const Atom g1 = goals.at(0);
  const State rest(goals.begin() + 1, goals.end());
  std::vector<State> yielded;

  // 1. Fact steps, ascending (s', o') (facts_ is sorted), never c itself.
  for (const Atom &f : facts_) {
    if (f.p != g1.p)
      continue;
    if (f.p == c.r && f.a == c.h && f.b == c.t)
      continue;
    Subst theta;
    if (unifyTerms(theta, g1.a, f.a) && unifyTerms(theta, g1.b, f.b))
      yielded.push_back(applySubst(theta, rest));
  }

  // 2. Rule steps in file order, rule variables renamed apart from G's.
  int lowest = 0;
  for (const Atom &g : goals)
    lowest = std::min({lowest, g.a, g.b});
  for (const Rule &rule : rules_) {
    if (rule.head.p != g1.p)
      continue;
    auto apart = [&](int t) { return t < 0 ? t + lowest : t; };
    State body;
    for (const Atom &b : rule.body)
      body.push_back({b.p, apart(b.a), apart(b.b)});
    Subst theta;
    if (!unifyTerms(theta, apart(rule.head.a), g1.a))
      continue;
    if (!unifyTerms(theta, apart(rule.head.b), g1.b))
      continue;
    State list = body;
    list.insert(list.end(), rest.begin(), rest.end());
    yielded.push_back(applySubst(theta, list));
  }

  // 3. Empty -> TRUE, longer than A -> dropped, else canonical.
  std::vector<State> states;
  for (const State &list : yielded) {
    if (list.empty())
      states.push_back(trueState());
    else if (static_cast<int>(list.size()) <= shape_.A)
      states.push_back(canonical(list));
  }
  // 4. Duplicates removed, first kept.
  std::vector<State> unique;
  for (const State &s : states)
    if (std::find(unique.begin(), unique.end(), s) == unique.end())
      unique.push_back(s);
  // 5.-7.
  if (std::find(unique.begin(), unique.end(), trueState()) != unique.end())
    return {trueState()};
  if (static_cast<int>(unique.size()) > shape_.S)
    unique.resize(shape_.S);
  if (unique.empty())
    return {falseState()};
  return unique;
}

std::vector<double> ReferenceProver::row(const char *tensor, int index) const {
  const Tensor &t = weights_->at(tensor);
  const int64_t width = t.shape.at(1);
  if (index < 0 || index >= t.shape.at(0))
    fail("reference: row {} of '{}' out of range", index, tensor);
  return std::vector<double>(t.data.begin() + index * width,
                             t.data.begin() + (index + 1) * width);
}

std::vector<double> ReferenceProver::atomEmbedding(const Atom &atom) const {
  const std::tuple<int, int, int> key = {atom.p, atom.a, atom.b};
  auto cached = atomCache_.find(key);
  if (cached != atomCache_.end())
    return cached->second;

  const int d = shape_.d;
  std::vector<double> x = row("pred_emb", atom.p);
  for (int term : {atom.a, atom.b}) {
    std::vector<double> v(d, 0.0); // TRUE/FALSE: no arguments
    if (atom.p < numRelations_)
      v = term >= 0 ? row("const_emb", term) : row("var_emb", -term - 1);
    x.insert(x.end(), v.begin(), v.end());
  }
  const Tensor &w = weights_->at("atom.weight");
  const Tensor &b = weights_->at("atom.bias");
  std::vector<double> y(d);
  for (int j = 0; j < d; ++j) {
    double s = b.data[j];
    for (int i = 0; i < 3 * d; ++i)
      s += double(w.data[j * 3 * d + i]) * x[i];
    y[j] = std::max(0.0, s);
  }
  atomCache_[key] = y;
  return y;
}

std::vector<double> ReferenceProver::encode(const State &state) const {
  const int d = shape_.d;
  std::vector<double> h(d, 0.0);
  for (const Atom &a : state) {
    std::vector<double> e = atomEmbedding(a);
    for (int j = 0; j < d; ++j)
      h[j] += e[j];
  }
  for (const Layer &layer : layers_) {
    std::vector<double> z = layer.bias; // z = W h + b
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j)
        z[j] += layer.weightT[i * d + j] * h[i];
    double mean = 0;
    for (double v : z)
      mean += v;
    mean /= d;
    double var = 0;
    for (double v : z)
      var += (v - mean) * (v - mean);
    var /= d;
    for (int j = 0; j < d; ++j) {
      double n = (z[j] - mean) / std::sqrt(var + 1e-5) * layer.lnWeight[j] +
                 layer.lnBias[j];
      h[j] = std::max(0.0, n);
    }
  }
  return h;
}

std::vector<double>
ReferenceProver::logits(const State &parent,
                        const std::vector<State> &children) const {
  std::vector<double> enc = encode(parent);
  std::vector<double> out;
  for (const State &child : children)
    out.push_back(dot(enc, encode(child)) / std::sqrt(double(shape_.d)));
  return out;
}

Outcome ReferenceProver::prove(const Triple &c) const {
  State g = canonical({{c.r, c.h, c.t}});
  int depth = 0;
  double logp = 0;
  while (true) {
    std::vector<State> derived = derive(g, c);
    Choice choice;
    if (derived.size() > 1)
      choice = choose(logits(g, derived));
    logp += choice.logp;
    g = derived[choice.index];
    depth += 1;
    Outcome o;
    o.depth = depth;
    o.logp = static_cast<float>(logp);
    if (g == trueState()) {
      o.status = ProofStatus::Proved;
      return o;
    }
    if (g == falseState()) {
      o.status = ProofStatus::Failed;
      return o;
    }
    if (depth == shape_.D) {
      o.status = ProofStatus::Truncated;
      return o;
    }
  }
}

std::vector<Outcome> ReferenceProver::proveAll(const CandidateSet &set) const {
  std::vector<Outcome> out;
  for (const Candidate &c : set.candidates)
    out.push_back(prove(c.triple));
  return out;
}

} // namespace proofc::reference
