//===- ProofsTest.cpp - The proofs' replay and their two formats ----------===//
//
// A hand-made knowledge base whose one derivation is worked out by hand:
// facts p(a,b), p(b,c); rule 'q(X,Y) :- p(X,Z), p(Z,Y).' on line 2. The
// candidate q(a,c) is proved in 3 steps, each with a single derived state:
//   [q(a,c)]            -rule-> [p(a,V3), p(V3,c)]   θ = {V1/a, V2/c}
//   [p(a,V1), p(V1,c)]  -fact p(a,b)-> [p(b,c)]       θ = {V1/b}
//   [p(b,c)]            -fact p(b,c)-> []             θ = {}
// The replay must give exactly that, refuse a recorded action out of range
// and a depth the replay does not end at, and the writers must print it as
// docs/proofs.md says, byte for byte.
//
//===----------------------------------------------------------------------===//
#include "runtime/host/HostTestUtil.h"
#include "session/SessionAccess.h"

#include "TestUtil.h"
#include "host/HostBackend.h"
#include "outputs/ProofFormats.h"
#include "outputs/Proofs.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Session.h"

#include <gtest/gtest.h>

namespace proofc::test {
namespace {

enum : int32_t { a, b, c };
enum : int32_t { P, Q };

class ProofsTest : public ::testing::Test {
protected:
  void SetUp() override {
    ds_ = makeDataset({"a", "b", "c"}, {"p", "q"},
                      {{"a", "p", "b"}, {"b", "p", "c"}},
                      "% the one rule\n"
                      "  q(X,Y) :- p(X,Z), p(Z,Y).  % two hops\n");
    kb_ = buildKnowledgeBase(ds_, false);
    shape_.A = 6;
    shape_.S = 120;
    shape_.D = 5;
    set_.queries = {{a, Q, c}};
    set_.candidates = {{{a, Q, c}, 0, Mode::Tail, c},
                       {{a, Q, b}, 0, Mode::Tail, b}};
    set_.groups = {{0, Mode::Tail, 0, 2}};
    outcomes_ = {{ProofStatus::Proved, 3, -0.5f},
                 {ProofStatus::Failed, 2, 0.f}};
    trace_.D = 5;
    trace_.actions = {0, 0, 0, -1, -1, /* candidate 1 */ 0, 0, -1, -1, -1};
  }

  Proof replay(int64_t index = 0) {
    DerivedSet scratch(kb_, shape_);
    return replayProof(kb_, ds_, shape_, set_, index, outcomes_[index], trace_,
                       scratch);
  }

  Dataset ds_;
  KnowledgeBase kb_;
  ShapeParams shape_;
  CandidateSet set_;
  std::vector<Outcome> outcomes_;
  ActionTrace trace_;
};

TEST_F(ProofsTest, RuleTextAndLineAreKept) {
  ASSERT_EQ(ds_.rules.size(), 1u);
  EXPECT_EQ(ds_.rules[0].line, 2);
  EXPECT_EQ(ds_.rules[0].text, "q(X,Y) :- p(X,Z), p(Z,Y).");
}

TEST_F(ProofsTest, ReplayGivesTheDerivationWorkedOutByHand) {
  const Proof proof = replay();
  EXPECT_EQ(proof.candidate, 0);
  ASSERT_EQ(proof.steps.size(), 3u);
  constexpr int32_t V1 = -1, V2 = -2, V3 = -3;

  const ProofStep &s1 = proof.steps[0];
  EXPECT_EQ(s1.goals, (std::vector<Atom>{{Q, a, c}}));
  EXPECT_EQ(s1.action, 0);
  EXPECT_EQ(s1.derived, 1);
  EXPECT_EQ(s1.rule, 0);
  EXPECT_EQ(s1.fact, -1);
  EXPECT_EQ(s1.ruleHead, (Atom{Q, V1, V2}));
  EXPECT_EQ(s1.ruleBody, (std::vector<Atom>{{P, V1, V3}, {P, V3, V2}}));
  EXPECT_EQ(s1.substitution,
            (std::vector<std::pair<int32_t, int32_t>>{{1, a}, {2, c}}));
  EXPECT_EQ(s1.resolvent, (std::vector<Atom>{{P, a, V3}, {P, V3, c}}));

  const ProofStep &s2 = proof.steps[1];
  EXPECT_EQ(s2.goals, (std::vector<Atom>{{P, a, V1}, {P, V1, c}}));
  EXPECT_EQ(s2.rule, -1);
  EXPECT_EQ(kb_.facts.at(s2.fact), (Atom{P, a, b}));
  EXPECT_EQ(s2.substitution,
            (std::vector<std::pair<int32_t, int32_t>>{{1, b}}));
  EXPECT_EQ(s2.resolvent, (std::vector<Atom>{{P, b, c}}));

  const ProofStep &s3 = proof.steps[2];
  EXPECT_EQ(s3.goals, (std::vector<Atom>{{P, b, c}}));
  EXPECT_EQ(kb_.facts.at(s3.fact), (Atom{P, b, c}));
  EXPECT_TRUE(s3.substitution.empty());
  EXPECT_TRUE(s3.resolvent.empty());
}

TEST_F(ProofsTest, ActionOutOfRangeIsAnError) {
  trace_.actions[1] = 1; // step 2 derived one state
  EXPECT_EQ(errorOf([&] { replay(); }),
            "proofs: candidate 0 (a q c; query 0, tail): step 2: the "
            "recorded action 1 is out of range (derive listed 1 state)");
  trace_.actions[1] = -1;
  EXPECT_NE(errorOf([&] { replay(); })
                .find("recorded action -1 is out of "
                      "range"),
            std::string::npos);
}

TEST_F(ProofsTest, ReplayMustEndInTheProvedStateAtItsDepth) {
  outcomes_[0].depth = 2;
  EXPECT_EQ(errorOf([&] { replay(); }),
            "proofs: candidate 0 (a q c; query 0, tail): step 2: the replay "
            "is not proved yet, the backend said PROVED at depth 2");
  outcomes_[0].depth = 4;
  EXPECT_EQ(errorOf([&] { replay(); }),
            "proofs: candidate 0 (a q c; query 0, tail): step 3: the replay "
            "is proved already, the backend said PROVED at depth 4");
  outcomes_[0].depth = 6; // past D
  EXPECT_NE(errorOf([&] { replay(); }).find("depth 6 is outside 1..D = 5"),
            std::string::npos);
}

TEST_F(ProofsTest, OnlyProvedCandidatesAndRecordedTracesReplay) {
  EXPECT_NE(errorOf([&] {
              replay(1);
            }).find("is failed, only a proved candidate has a proof"),
            std::string::npos);
  trace_.actions.resize(5); // candidate 1's row missing
  outcomes_[1] = {ProofStatus::Proved, 1, 0.f};
  EXPECT_NE(errorOf([&] { replay(1); }).find("no recorded actions"),
            std::string::npos);
}

TEST_F(ProofsTest, JsonLine) {
  const ProofContext ctx{ds_, kb_, set_, outcomes_};
  EXPECT_EQ(proofJsonLine(ctx, replay()),
            R"({"candidate":0,"depth":3,"mode":"tail","positive":true,)"
            R"("query":0,"steps":[)"
            R"({"action":0,"clause":{"rule":{"body":[["p",1,3],["p",3,2]],)"
            R"("head":["q",1,2],"line":2,"text":"q(X,Y) :- p(X,Z), p(Z,Y)."}},)"
            R"("derived":1,"goals":[["q","a","c"]],)"
            R"("resolvent":[["p","a",3],["p",3,"c"]],)"
            R"("substitution":[[1,"a"],[2,"c"]]},)"
            R"({"action":0,"clause":{"fact":["p","a","b"]},"derived":1,)"
            R"("goals":[["p","a",1],["p",1,"c"]],"resolvent":[["p","b","c"]],)"
            R"("substitution":[[1,"b"]]},)"
            R"({"action":0,"clause":{"fact":["p","b","c"]},"derived":1,)"
            R"("goals":[["p","b","c"]],"resolvent":[],"substitution":[]}],)"
            R"("triple":["a","q","c"]})"
            "\n");
}

TEST_F(ProofsTest, PrologLine) {
  const ProofContext ctx{ds_, kb_, set_, outcomes_};
  EXPECT_EQ(proofPrologLine(ctx, replay()),
            "proof(0,0,tail,true,'q'('a','c'),3,["
            "step(['q'('a','c')],0,1,rule(2,'q(X,Y) :- p(X,Z), p(Z,Y).',"
            "'q'(v(1),v(2)),['p'(v(1),v(3)),'p'(v(3),v(2))]),"
            "[v(1)='a',v(2)='c'],['p'('a',v(3)),'p'(v(3),'c')]),"
            "step(['p'('a',v(1)),'p'(v(1),'c')],0,1,fact('p'('a','b')),"
            "[v(1)='b'],['p'('b','c')]),"
            "step(['p'('b','c')],0,1,fact('p'('b','c')),[],[])]).\n");
}

TEST(ProofFormats, PrologQuotesEveryName) {
  // A quote, a backslash and a control byte in names; UTF-8 as is.
  const std::string okName = "o'k\\", ctlName = "x\x01y";
  Dataset ds = makeDataset({okName, ctlName, "\xc3\xa9t\xc3\xa9"}, {"r"},
                           {{okName, "r", ctlName}}, "r(X,Y) :- r(Y,X).");
  KnowledgeBase kb = buildKnowledgeBase(ds, false);
  ShapeParams shape;
  shape.A = 6;
  shape.S = 120;
  shape.D = 3;
  const int32_t ok = ds.entities.find(okName), ctl = ds.entities.find(ctlName);
  CandidateSet set;
  set.queries = {{ctl, 0, ok}};
  set.candidates = {{{ctl, 0, ok}, 0, Mode::Head, ctl}};
  set.groups = {{0, Mode::Head, 0, 1}};
  std::vector<Outcome> outcomes = {{ProofStatus::Proved, 2, 0.f}};
  ActionTrace trace{3, {0, 0, -1}};
  DerivedSet scratch(kb, shape);
  const Proof proof =
      replayProof(kb, ds, shape, set, 0, outcomes[0], trace, scratch);
  const ProofContext ctx{ds, kb, set, outcomes};
  const std::string line = proofPrologLine(ctx, proof);
  EXPECT_EQ(line, "proof(0,0,head,true,'r'('x\\x1\\y','o\\'k\\\\'),2,"
                  "[step(['r'('x\\x1\\y','o\\'k\\\\')],0,1,"
                  "rule(1,'r(X,Y) :- r(Y,X).','r'(v(1),v(2)),['r'(v(2),v(1))]),"
                  "[v(1)='x\\x1\\y',v(2)='o\\'k\\\\'],"
                  "['r'('o\\'k\\\\','x\\x1\\y')]),"
                  "step(['r'('o\\'k\\\\','x\\x1\\y')],0,1,"
                  "fact('r'('o\\'k\\\\','x\\x1\\y')),[],[])]).\n");
  // The proofs file: a comment line, then the proofs; JSON: the lines.
  EXPECT_EQ(proofsFile(ProofFormat::Prolog, ProofSelection::All, ds, false,
                       shape, set, outcomes, trace),
            "% proofc proofs, format 2 (docs/proofs.md): proof(Candidate, "
            "Query, Mode, Positive, Goal, Depth, Steps).\n" +
                line);
  EXPECT_EQ(proofsFile(ProofFormat::Json, ProofSelection::Positives, ds, false,
                       shape, set, outcomes, trace),
            proofJsonLine(ctx, proof));
  EXPECT_NE(proofJsonLine(ctx, proof).find(R"("x\u0001y")"), std::string::npos);
}

TEST_F(ProofsTest, SelectionAndTheCandidatesOwnTriple) {
  // Candidate 1 failed: --proofs-of all holds candidate 0 alone.
  const std::string all =
      proofsFile(ProofFormat::Json, ProofSelection::All, ds_, false, shape_,
                 set_, outcomes_, trace_);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1);
  EXPECT_EQ(all.rfind(R"({"candidate":0,)", 0), 0u);
  // A backend that said candidate 1 = p(a,b) is proved by the fact p(a,b):
  // its own triple is never a fact, so the replay refuses it.
  outcomes_[1] = {ProofStatus::Proved, 1, 0.f};
  set_.candidates[1].triple = {a, P, b};
  trace_.actions = {0, 0, 0, -1, -1, 0, -1, -1, -1, -1};
  EXPECT_EQ(errorOf([&] {
              proofsFile(ProofFormat::Json, ProofSelection::All, ds_, false,
                         shape_, set_, outcomes_, trace_);
            }),
            "proofs: candidate 1 (a p b; query 0, tail): step 1: the replay "
            "fails (no clause resolves the first goal), the backend said "
            "PROVED at depth 1");
  // Only the positives: candidate 1 (not the query's triple) is skipped.
  EXPECT_EQ(proofsFile(ProofFormat::Json, ProofSelection::Positives, ds_, false,
                       shape_, set_, outcomes_, trace_),
            all);
}

TEST(ProofFormats, FlagValues) {
  EXPECT_EQ(parseProofFormat("prolog", "--proofs-format"), ProofFormat::Prolog);
  EXPECT_EQ(errorOf([] { parseProofFormat("xml", "--proofs-format"); }),
            "--proofs-format xml: expected json or prolog");
  EXPECT_EQ(errorOf([] { parseProofSelection("some", "--proofs-of"); }),
            "--proofs-of some: expected all or positives");
}

// The host backend records each step's action (-1 after the last step), and
// every proved candidate of a real run replays; a session refuses to record
// on a backend that cannot.
TEST(ProofsRun, HostBackendRecordsActionsThatReplay) {
  HostBackend backend;
  SessionOptions options;
  options.data = dataDir("countries_s3");
  options.corruptions = 10;
  options.recordActions = true;
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", options);
  const SessionResult result =
      session.evaluateFile(weightsFile("countries_s3"));
  const ActionTrace &trace = result.actions;
  const int32_t D = session.program().shape.D;
  ASSERT_EQ(trace.D, D);
  ASSERT_EQ(trace.actions.size(), result.outcomes.size() * size_t(D));
  const KnowledgeBase kb = buildKnowledgeBase(session.dataset(), false);
  DerivedSet scratch(kb, session.program().shape);
  int proved = 0;
  for (size_t i = 0; i < result.outcomes.size(); ++i) {
    const Outcome &o = result.outcomes[i];
    for (int32_t s = 0; s < D; ++s)
      EXPECT_EQ(trace.actions[i * D + s] >= 0, s < o.depth) << i << " " << s;
    if (o.status != ProofStatus::Proved)
      continue;
    ++proved;
    EXPECT_EQ(replayProof(kb, session.dataset(), session.program().shape,
                          session.candidates(), int64_t(i), o, trace, scratch)
                  .steps.size(),
              size_t(o.depth));
  }
  EXPECT_GT(proved, 10);
}

class NoTraceBackend : public Backend {
public:
  std::string name() const override { return "fake"; }
  std::vector<Outcome> run(const EvalInputs &, BackendTimings &) override {
    return {};
  }
};

TEST(ProofsRun, BackendWithoutActionsIsRefused) {
  NoTraceBackend backend;
  SessionOptions options;
  options.data = dataDir("countries_s3");
  options.recordActions = true;
  EXPECT_EQ(errorOf([&] {
              SessionAccess::make(v10Program(), {&backend}, "x", options);
            }),
            "proofs (--proofs): the fake backend does not record the steps' "
            "actions yet; run on the host backend (--device cpu)");
}

} // namespace
} // namespace proofc::test
