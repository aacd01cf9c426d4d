//===- SessionRollouts.cpp - Session::rollouts() --------------------------===//
//
// The rollouts entry of the embedding API (Rollouts.h, docs/rollouts.md):
// the request is checked once (checkRolloutRequest), the weights as
// evaluate() checks them, then the session's first backend runs the
// episodes over the session's dataset and facts and owns the output.
//
//===----------------------------------------------------------------------===//
#include "session/SessionState.h"

namespace proofc {

Trajectories Session::State::rollouts(
    const RolloutRequest &request, const TensorMap &weights,
    const std::map<std::string, DeviceWeight> *deviceWeights,
    const EvaluateControl &control, Clock::time_point callStart) {
  checkRolloutRequest(request, program, dataset);
  RunControl runControl;
  runControl.cancel = control.cancel;
  RolloutInputs inputs{program, dataset, weights, request};
  inputs.factsIncludeValid = options.factsIncludeValid;
  inputs.deviceWeights = deviceWeights;
  inputs.kbId = poolId;
  inputs.control = &runControl;
  Trajectories out = backend->rollouts(inputs);
  out.callSeconds = secondsSince(callStart);
  return out;
}

Trajectories Session::rollouts(const RolloutRequest &request,
                               const TensorMap &weights,
                               const EvaluateControl &control) {
  const Clock::time_point start = Clock::now();
  checkWeights(state_->program, state_->dataset, weights, "weights");
  return state_->rollouts(request, weights, nullptr, control, start);
}

Trajectories Session::rollouts(const RolloutRequest &request,
                               const TensorViews &weights,
                               const EvaluateControl &control) {
  const Clock::time_point start = Clock::now();
  const State::BoundViews bound = state_->bindViews(weights);
  return state_->rollouts(request, bound.host,
                          bound.onDevice ? &bound.device : nullptr, control,
                          start);
}

Trajectories Session::rollouts(const RolloutRequest &request,
                               const WeightsFile &weights,
                               const EvaluateControl &control) {
  const Clock::time_point start = Clock::now();
  return state_->rollouts(request, weights.tensors, nullptr, control, start);
}

} // namespace proofc
