//===- SessionReportTest.cpp - A call's report, made on request -----------===//
//
// SessionResult::rankMetrics() and reportJson() are made from the call's
// ranks when first asked (SessionReport.h): asked twice they give the same
// bytes (made once), asked after later calls they still describe their own
// call, asked after the session is gone they still work, and they equal
// what the call's outcomes give when computed directly.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "session/SessionAccess.h"

#include "host/HostBackend.h"
#include "outputs/Report.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <thread>

using namespace proofc;
using namespace proofc::test;

namespace {

SessionOptions kinshipSession() {
  SessionOptions o = splitSession("kinship", 6, 20, 3);
  o.rankMetrics.perRelation = true;
  o.rankMetrics.bootstrapSamples = 20;
  return o;
}

/// The report's sections that depend on the weights alone.
nlohmann::json weightSections(const std::string &report) {
  nlohmann::json j = nlohmann::json::parse(report);
  return {{"metrics", j["metrics"]},
          {"rank_metrics", j["rank_metrics"]},
          {"pykeen", j["pykeen"]},
          {"weights_xxh3", j["provenance"]["weights_xxh3"]}};
}

TEST(SessionReport, AskedTwiceItIsMadeOnceTheSameBytes) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const SessionResult r = session.evaluateFile(weightsFile("kinship"));
  const std::string &first = r.reportJson();
  const std::string copy = first;
  const std::string &second = r.reportJson();
  EXPECT_EQ(&first, &second); // kept, not made again
  EXPECT_EQ(copy, second);
  EXPECT_EQ(&r.rankMetrics(), &r.rankMetrics());
  // A copy of the result shares what was made.
  const SessionResult shared = r;
  EXPECT_EQ(&shared.reportJson(), &first);
}

TEST(SessionReport, ALaterCallLeavesAnEarlierReportItsOwn) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const TensorMap a = session.loadWeights(weightsFile("kinship")).tensors;
  const TensorMap b = initWeights(v10Program(), session.dataset(), 11);
  // Nothing asked of A's result before B runs.
  const SessionResult ofA = session.evaluate(a);
  const SessionResult ofB = session.evaluate(b);
  const std::string bReport = ofB.reportJson(); // asked at once
  const SessionResult againA = session.evaluate(a);
  const std::string aReport = againA.reportJson();
  EXPECT_EQ(weightSections(ofA.reportJson()), weightSections(aReport));
  EXPECT_NE(weightSections(ofA.reportJson()), weightSections(bReport));
  // Each report's metrics are its own result's.
  EXPECT_EQ(nlohmann::json::parse(ofA.reportJson())["metrics"],
            metricsJson(ofA.metrics));
  EXPECT_EQ(nlohmann::json::parse(bReport)["metrics"],
            metricsJson(ofB.metrics));
}

TEST(SessionReport, EqualsTheMetricsOfTheOutcomesAndOutlivesItsSession) {
  std::optional<SessionResult> r;
  RankMetrics direct;
  {
    HostBackend backend(HostBackendOptions{2});
    Session session =
        SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
    r = session.evaluateFile(weightsFile("kinship"));
    direct = computeRankMetrics(session.candidates(), r->outcomes,
                                session.options().rankMetrics);
  } // the session and its backend are gone
  const nlohmann::json report = nlohmann::json::parse(r->reportJson());
  ASSERT_FALSE(report["rank_metrics"]["per_relation"].empty());
  EXPECT_EQ(pykeenKeyMap(r->rankMetrics()), pykeenKeyMap(direct));
  EXPECT_EQ(report["pykeen"], pykeenKeyMap(direct));
  EXPECT_EQ(r->rankMetrics().bootstrapQueries, direct.bootstrapQueries);
  EXPECT_EQ(r->rankMetrics().perRelation.size(), direct.perRelation.size());
}

TEST(SessionReport, ASectionIsTheReportsOwnValue) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const SessionResult r = session.evaluateFile(weightsFile("kinship"));
  // Asked before the report is made (metrics, timings: made alone), then
  // after.
  const std::string metrics = r.reportSectionJson("metrics");
  const std::string timings = r.reportSectionJson("timings");
  const nlohmann::json whole = nlohmann::json::parse(r.reportJson());
  EXPECT_EQ(nlohmann::json::parse(metrics), whole["metrics"]);
  EXPECT_EQ(nlohmann::json::parse(timings), whole["timings"]);
  for (const char *key : {"pykeen", "provenance", "rank_metrics", "metrics"})
    EXPECT_EQ(nlohmann::json::parse(r.reportSectionJson(key)), whole[key])
        << key;
  EXPECT_THROW(r.reportSectionJson("no_such_key"), Error);
  EXPECT_THROW(SessionResult().reportSectionJson("metrics"), Error);
}

TEST(SessionReport, ThreadsAskingAtOnceGetOneReport) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const SessionResult r = session.evaluateFile(weightsFile("kinship"));
  // Each thread copies the text it was handed while the others may be
  // making it: a report made twice, or read half made, differs from the
  // one kept.
  const std::string *seen[4] = {};
  std::string copies[4];
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      seen[t] = &r.reportJson();
      copies[t] = *seen[t];
    });
  for (std::thread &t : threads)
    t.join();
  const std::string &kept = r.reportJson();
  EXPECT_FALSE(kept.empty());
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(seen[t], &kept) << t;
    EXPECT_EQ(copies[t], kept) << t;
  }
}

TEST(SessionReport, ADefaultMadeResultHasNone) {
  const SessionResult none;
  EXPECT_TRUE(none.reportJson().empty());
  EXPECT_TRUE(none.rankMetrics().pykeen.empty());
  EXPECT_THROW(none.reportSectionJson("metrics"), Error);
}

TEST(SessionReport, TheToolsGetTheWholeInputs) {
  // SessionAccess hands the tools the inputs with the rank metrics and the
  // backend's device made: their report is the session's, byte for byte,
  // when written from them.
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", kinshipSession());
  const ReportedResult out = SessionAccess::evaluate(
      session, session.loadWeights(weightsFile("kinship")));
  ASSERT_TRUE(out.report.rankMetrics.has_value());
  EXPECT_EQ(reportJson(out.report).dump(2) + "\n", out.result.reportJson());
}

} // namespace
