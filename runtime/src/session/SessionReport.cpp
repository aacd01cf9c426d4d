//===- SessionReport.cpp - A call's report, made on request ---------------===//
#include "session/SessionReport.h"

#include "proofc/runtime/Session.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace proofc {

SessionReport::SessionReport(ReportInputs inputs, std::vector<PairRanks> pairs,
                             RankMetricOptions options,
                             std::vector<BackendInfo> infos)
    : inputs_(std::move(inputs)), pairs_(std::move(pairs)),
      options_(std::move(options)), infos_(std::move(infos)) {}

const RankMetrics &SessionReport::rankMetrics() const {
  std::call_once(rankOnce_, [this] {
    inputs_.rankMetrics = computeRankMetrics(pairs_, options_);
  });
  return *inputs_.rankMetrics;
}

const ReportInputs &SessionReport::inputs() const {
  std::call_once(inputsOnce_, [this] {
    rankMetrics();
    if (infos_.empty())
      return;
    ReportInputs &r = inputs_;
    const BackendInfo &info = infos_.front();
    if (!info.detailsJson.empty())
      r.backendDetails = nlohmann::json::parse(info.detailsJson);
    if (!info.device.empty())
      r.device = info.device;
    if (infos_.size() > 1 && !info.detailsJson.empty()) {
      // Several device workers (SessionOptions::devices, workersPerDevice):
      // the first one's details, and every worker's under "workers"
      // (docs/report-schema.md); the device names each GPU once.
      std::vector<std::string> ordinals;
      nlohmann::json workers = nlohmann::json::array();
      for (const BackendInfo &worker : infos_) {
        if (worker.ordinal < 0)
          continue;
        const std::string name = fmt::format("cuda:{}", worker.ordinal);
        if (std::find(ordinals.begin(), ordinals.end(), name) == ordinals.end())
          ordinals.push_back(name);
        nlohmann::json w = nlohmann::json::parse(worker.detailsJson);
        w["ordinal"] = worker.ordinal;
        workers.push_back(std::move(w));
      }
      r.backendDetails["workers"] = std::move(workers);
      const std::string perDevice =
          infos_.size() > ordinals.size()
              ? fmt::format(", {} workers per device",
                            infos_.size() /
                                std::max<size_t>(ordinals.size(), 1))
              : "";
      r.device =
          ordinals.size() > 1
              ? fmt::format("{} x{} ({}), cond {}{}{}", info.model,
                            ordinals.size(), fmt::join(ordinals, ", "),
                            info.cond, info.condFellBack ? " (fallback)" : "",
                            perDevice)
              : info.device + perDevice;
    }
  });
  return inputs_;
}

const nlohmann::json &SessionReport::document() const {
  std::call_once(documentOnce_, [this] { document_ = reportJson(inputs()); });
  return document_;
}

const std::string &SessionReport::json() const {
  std::call_once(jsonOnce_, [this] { json_ = document().dump(2) + "\n"; });
  return json_;
}

std::string SessionReport::section(const std::string &key) const {
  // inputs_'s metrics and timings are set when made: no race with inputs().
  if (key == "metrics")
    return metricsJson(inputs_.metrics).dump();
  if (key == "timings")
    return timingsJson(inputs_).dump();
  const nlohmann::json &whole = document();
  auto it = whole.find(key);
  if (it == whole.end())
    fail("the report has no key '{}'", escapeForMessage(key));
  return it->dump();
}

const RankMetrics &SessionResult::rankMetrics() const {
  static const RankMetrics none;
  return report_ ? report_->rankMetrics() : none;
}

const std::string &SessionResult::reportJson() const {
  static const std::string none;
  return report_ ? report_->json() : none;
}

std::string SessionResult::reportSectionJson(const std::string &key) const {
  if (!report_)
    fail("the result has no report (a default-made SessionResult)");
  return report_->section(key);
}

} // namespace proofc
