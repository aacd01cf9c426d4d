//===- Progress.cpp - Candidates done / total, rate and ETA ---------------===//
#include "tooling/Progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include <unistd.h>

namespace proofc {
namespace {

/// m:ss, or h:mm:ss from an hour on.
std::string clockText(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(seconds));
  if (s >= 3600)
    return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

} // namespace

ProgressStyle progressStyleFor(std::FILE *stream, bool quiet) {
  if (quiet)
    return ProgressStyle::Quiet;
  return ::isatty(fileno(stream)) ? ProgressStyle::Bar : ProgressStyle::Lines;
}

std::string progressText(int64_t done, int64_t total, double elapsed) {
  const double percent =
      total > 0 ? 100.0 * static_cast<double>(done) / total : 100.0;
  std::string text =
      fmt::format("{}/{} candidates ({:.1f}%)", done, total, percent);
  if (done <= 0 || elapsed <= 0)
    return text + ", ETA --:--";
  const double rate = done / elapsed;
  text += rate >= 100 ? fmt::format(", {:.0f}/s", rate)
                      : fmt::format(", {:.1f}/s", rate);
  return text + ", ETA " + clockText(std::max<int64_t>(0, total - done) / rate);
}

std::string progressBar(int64_t done, int64_t total, int width) {
  int64_t filled = total > 0 ? done * width / total : width;
  filled = std::clamp<int64_t>(filled, 0, width);
  return "[" + std::string(static_cast<size_t>(filled), '#') +
         std::string(static_cast<size_t>(width - filled), ' ') + "] ";
}

double ProgressReporter::steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ProgressReporter::ProgressReporter(int64_t total, ProgressStyle style,
                                   std::FILE *stream, Clock clock)
    : total_(total), style_(style), stream_(stream), clock_(std::move(clock)),
      start_(clock_()), lastDraw_(start_) {}

ProgressReporter::~ProgressReporter() { finish(); }

void ProgressReporter::update(int64_t done) {
  if (style_ == ProgressStyle::Quiet)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_)
    return;
  const double now = clock_();
  const double interval =
      style_ == ProgressStyle::Bar ? kBarInterval : kLineInterval;
  if (now - lastDraw_ < interval)
    return;
  lastDraw_ = now;
  const std::string text = progressText(done, total_, now - start_);
  if (style_ == ProgressStyle::Bar) {
    // \r and erase-to-end-of-line: redrawn in place, never wraps on its own.
    fmt::print(stream_, "\r{}{}\x1b[K", progressBar(done, total_, kBarWidth),
               text);
    drawn_ = true;
  } else {
    fmt::print(stream_, "proofc: progress {}\n", text);
  }
  std::fflush(stream_);
}

void ProgressReporter::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_)
    return;
  finished_ = true;
  if (drawn_) {
    std::fputs("\r\x1b[K", stream_);
    std::fflush(stream_);
  }
}

} // namespace proofc
