//===- RowCounts.cpp - A part's counts against the rows it carries --------===//
#include "tooling/RowCounts.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <limits>

namespace proofc {

void RowCounter::update(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t end = bytes.find('\n');
    if (end == std::string_view::npos) {
      partial_.append(bytes);
      return;
    }
    if (partial_.empty()) {
      line(bytes.substr(0, end));
    } else {
      partial_.append(bytes.substr(0, end));
      line(partial_);
      partial_.clear();
    }
    bytes.remove_prefix(end + 1);
  }
}

void RowCounter::line(std::string_view text) {
  // query, mode, entity, status, depth, ...
  std::string_view field[5];
  for (int i = 0; i < 5; ++i) {
    const size_t tab = text.find('\t');
    if (tab == std::string_view::npos && i < 4)
      fail("{}: outcome row {} has fewer than 5 columns", path_,
           counts_.candidates + 1);
    field[i] = text.substr(0, tab);
    text.remove_prefix(tab == std::string_view::npos ? text.size() : tab + 1);
  }
  if (field[3] == "proved")
    ++counts_.proved;
  else if (field[3] == "failed")
    ++counts_.failed;
  else if (field[3] == "truncated")
    ++counts_.truncated;
  else
    fail("{}: outcome row {} has the status {}, not proved, failed or "
         "truncated",
         path_, counts_.candidates + 1, escapeForMessage(field[3]));
  int64_t depth = 0;
  bool ok = !field[4].empty() && field[4].size() <= 18;
  for (char c : field[4]) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    depth = depth * 10 + (c - '0');
  }
  if (!ok || depth > std::numeric_limits<int64_t>::max() - counts_.depthSum)
    fail("{}: outcome row {} has the depth {}, not a decimal integer", path_,
         counts_.candidates + 1, escapeForMessage(field[4]));
  counts_.depthSum += depth;
  ++counts_.candidates;
}

void RowCounter::check(const OutcomeCounts &h) const {
  if (!partial_.empty())
    fail("{}: the outcome rows end in a line without its line feed", path_);
  const OutcomeCounts &r = counts_;
  if (h.candidates != r.candidates || h.proved != r.proved ||
      h.failed != r.failed || h.truncated != r.truncated ||
      h.depthSum != r.depthSum)
    fail("{}: the part's counts ({} candidates: {} proved, {} failed, {} "
         "truncated, depth sum {}) are not those of its outcome rows ({}: {}, "
         "{}, {}, {}); the file is damaged or forged",
         path_, h.candidates, h.proved, h.failed, h.truncated, h.depthSum,
         r.candidates, r.proved, r.failed, r.truncated, r.depthSum);
}

} // namespace proofc
