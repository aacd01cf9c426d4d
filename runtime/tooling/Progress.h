//===- Progress.h - Candidates done / total, rate and ETA -------*- C++ -*-===//
//
// The progress display of a run on stderr: a bar redrawn in place (at most
// 10 times a second) when the stream is a terminal, a plain line every few
// seconds when it is a file or a pipe (logs stay readable), nothing when
// quiet. The clock is injectable so that formatting and throttling are
// tested without waiting.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PROGRESS_H
#define PROOFC_RUNTIME_PROGRESS_H

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>

namespace proofc {

enum class ProgressStyle { Bar, Lines, Quiet };

/// Quiet when `quiet`, Bar when `stream` is a terminal, else Lines.
ProgressStyle progressStyleFor(std::FILE *stream, bool quiet);

/// "1234/5678 candidates (21.7%), 512/s, ETA 0:08": the rate is the mean
/// since the start, the ETA the rest at that rate ("ETA --:--" before any
/// candidate has finished).
std::string progressText(int64_t done, int64_t total, double elapsedSeconds);

/// "[#########               ] " (width cells between the brackets).
std::string progressBar(int64_t done, int64_t total, int width);

class ProgressReporter {
public:
  /// Seconds on a monotonic clock.
  using Clock = std::function<double()>;
  static double steadySeconds();

  ProgressReporter(int64_t total, ProgressStyle style,
                   std::FILE *stream = stderr, Clock clock = steadySeconds);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter &) = delete;
  ProgressReporter &operator=(const ProgressReporter &) = delete;

  /// `done` candidates have finished; draws when the throttle allows.
  /// Thread-safe.
  void update(int64_t done);
  /// Erases the bar (Bar style) so that the next output starts on a clean
  /// line. Idempotent; also done by the destructor.
  void finish();

  /// Minimum seconds between two redraws of the bar / two plain lines.
  static constexpr double kBarInterval = 0.1;
  static constexpr double kLineInterval = 5.0;
  static constexpr int kBarWidth = 24;

private:
  const int64_t total_;
  const ProgressStyle style_;
  std::FILE *const stream_;
  const Clock clock_;
  const double start_;
  double lastDraw_;
  bool drawn_ = false; ///< a bar is on screen
  bool finished_ = false;
  std::mutex mutex_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_PROGRESS_H
