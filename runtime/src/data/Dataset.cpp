//===- Dataset.cpp - Load train/valid/test.tsv and rules.txt --------------===//
//
// Spec §1.1. The three TSV files are read whole and parsed into views of their
// bytes; names are interned through string_view maps, so a line costs no heap
// allocation. Ids are the byte-sorted names of train ∪ valid ∪ test.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Dataset.h"

#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/MessageText.h"

#include <algorithm>
#include <cstring>

namespace proofc {

Vocab::Vocab(std::vector<std::string> names) : names_(std::move(names)) {
  std::sort(names_.begin(), names_.end());
  names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
  ids_.reserve(names_.size());
  for (size_t i = 0; i < names_.size(); ++i)
    ids_.emplace(names_[i], static_cast<int32_t>(i));
}

int32_t Vocab::find(std::string_view name) const {
  // C++17 unordered_map has no heterogeneous lookup; reuse one key buffer.
  thread_local std::string key;
  key.assign(name.data(), name.size());
  auto it = ids_.find(key);
  return it == ids_.end() ? -1 : it->second;
}

const std::vector<Triple> &Dataset::split(std::string_view name) const {
  if (name == "train")
    return train;
  if (name == "valid")
    return valid;
  if (name == "test")
    return test;
  fail("unknown split '{}' (expected train, valid or test)", name);
}

namespace {

struct RawTriple {
  std::string_view h, r, t;
};

/// Parses one TSV file's bytes into views of them (spec §1.1 line rules).
std::vector<RawTriple> parseTsv(std::string_view text,
                                const std::string &path) {
  text = stripLeadingBom(text);
  static const char *const kFieldNames[3] = {"head", "relation", "tail"};
  std::vector<RawTriple> out;
  out.reserve(text.size() / 24);
  size_t pos = 0;
  int64_t lineNo = 0;
  while (pos < text.size()) {
    ++lineNo;
    const char *begin = text.data() + pos;
    const void *nl = std::memchr(begin, '\n', text.size() - pos);
    size_t len = nl ? static_cast<const char *>(nl) - begin : text.size() - pos;
    pos += len + (nl ? 1 : 0);
    std::string_view line(begin, len);
    if (!line.empty() && line.back() == '\r' && nl)
      line.remove_suffix(1);
    if (line.empty())
      continue;
    size_t cr = line.find('\r');
    if (cr != std::string_view::npos)
      fail("{}:{}: carriage return not followed by a line feed (column {})",
           path, lineNo, cr + 1);
    std::string_view fields[3];
    size_t count = 0, start = 0;
    while (true) {
      size_t tab = line.find('\t', start);
      std::string_view field = line.substr(start, tab == std::string_view::npos
                                                      ? std::string_view::npos
                                                      : tab - start);
      if (count < 3)
        fields[count] = field;
      ++count;
      if (tab == std::string_view::npos)
        break;
      start = tab + 1;
    }
    if (count != 3)
      fail("{}:{}: expected 3 TAB-separated fields (head, relation, tail), "
           "found {}",
           path, lineNo, count);
    for (int i = 0; i < 3; ++i) {
      if (fields[i].empty())
        fail("{}:{}: empty {} field", path, lineNo, kFieldNames[i]);
      if (!isValidUtf8(fields[i]))
        fail("{}:{}: invalid UTF-8 in the {} field", path, lineNo,
             kFieldNames[i]);
    }
    out.push_back({fields[0], fields[1], fields[2]});
  }
  return out;
}

/// Interns names as views (into the file buffers) and numbers them in byte
/// order once all three splits are seen.
class NameTable {
public:
  void add(std::string_view name) { ids_.emplace(name, -1); }

  /// Assigns byte-order ids and returns the matching Vocab.
  Vocab finish() {
    std::vector<std::string_view> sorted;
    sorted.reserve(ids_.size());
    for (const auto &entry : ids_)
      sorted.push_back(entry.first);
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::string> names;
    names.reserve(sorted.size());
    for (size_t i = 0; i < sorted.size(); ++i) {
      ids_[sorted[i]] = static_cast<int32_t>(i);
      names.emplace_back(sorted[i]);
    }
    return Vocab(std::move(names));
  }

  int32_t id(std::string_view name) const { return ids_.at(name); }

private:
  std::unordered_map<std::string_view, int32_t> ids_;
};

std::string joinPath(const std::string &dir, const char *file) {
  if (dir.empty())
    return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

} // namespace

Dataset loadDataset(const std::string &dir) {
  static const char *const kSplits[3] = {"train.tsv", "valid.tsv", "test.tsv"};
  // The buffers must outlive the views in `raw` and in the name tables.
  std::string text[3];
  std::vector<RawTriple> raw[3];
  for (int s = 0; s < 3; ++s) {
    std::string path = joinPath(dir, kSplits[s]);
    text[s] = readFile(path);
    raw[s] = parseTsv(text[s], path);
  }

  NameTable entities, relations;
  for (const auto &split : raw)
    for (const RawTriple &t : split) {
      entities.add(t.h);
      entities.add(t.t);
      relations.add(t.r);
    }

  Dataset ds;
  ds.dir = dir;
  ds.entities = entities.finish();
  ds.relations = relations.finish();
  std::vector<Triple> *outs[3] = {&ds.train, &ds.valid, &ds.test};
  for (int s = 0; s < 3; ++s) {
    outs[s]->reserve(raw[s].size());
    for (const RawTriple &t : raw[s])
      outs[s]->push_back(
          {entities.id(t.h), relations.id(t.r), entities.id(t.t)});
  }

  std::string rulesPath = joinPath(dir, "rules.txt");
  ds.rules =
      parseRules(readFile(rulesPath), rulesPath, ds.entities, ds.relations);
  return ds;
}

} // namespace proofc
