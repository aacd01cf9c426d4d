//===- HitsList.cpp - The --hits list of the tools ------------------------===//
#include "tooling/HitsList.h"

#include "proofc/runtime/RankMetrics.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <algorithm>

namespace proofc {

std::vector<int64_t> parseHitsList(const std::string &text) {
  std::vector<int64_t> hits;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    int64_t value = 0;
    bool ok = !item.empty() && item.size() <= 18;
    for (char c : item)
      ok = ok && c >= '0' && c <= '9';
    if (ok)
      value = std::stoll(item);
    if (!ok || value < 1)
      fail("--hits: '{}' is not a positive integer (expected a list such as "
           "1,3,10)",
           escapeForMessage(item));
    hits.push_back(value);
    start = comma + 1;
  }
  return normalizeHits(std::move(hits), "--hits");
}

} // namespace proofc
