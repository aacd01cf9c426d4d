//===- Profiling.cpp - per-launch kernel times
//------------------------------===//
//
// Profiled runs (PROOFC_PROFILE=1, host-driven): a pool of timing events
// around each launch (launchDirect), summed per launch name into
// CudaRunInfo::launchSeconds whenever the stream is synchronized.
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"

namespace proofc {

CUevent CudaRunner::timingEvent() {
  if (nextEvent_ == dev_.timing.size()) {
    CUevent e = nullptr;
    PROOFC_CU(dev_.drv, cuEventCreate, &e, CU_EVENT_DEFAULT);
    dev_.timing.push_back(e);
  }
  return dev_.timing[nextEvent_++];
}

void CudaRunner::collectTimings() {
  for (const TimedLaunch &t : timed_) {
    float ms = 0;
    PROOFC_CU(dev_.drv, cuEventElapsedTime, &ms, t.before, t.after);
    info_.launchSeconds[*t.name] += ms * 1e-3;
  }
  timed_.clear();
  nextEvent_ = 0;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
