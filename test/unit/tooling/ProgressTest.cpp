//===- ProgressTest.cpp - Progress text, bar and throttling ---------------===//
//
// The reporter writes to an in-memory stream and reads a fake clock, so the
// tests see exactly what a terminal or a log would, without waiting.
//
//===----------------------------------------------------------------------===//
#include "tooling/Progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace proofc::test {
namespace {

/// An open_memstream FILE and the text written to it so far.
class MemoryStream {
public:
  MemoryStream() : file_(::open_memstream(&data_, &size_)) {}
  ~MemoryStream() {
    std::fclose(file_);
    std::free(data_);
  }
  std::FILE *file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(data_, size_);
  }

private:
  char *data_ = nullptr;
  size_t size_ = 0;
  std::FILE *file_;
};

/// A clock the test moves by hand.
struct FakeClock {
  double now = 1000.0;
  ProgressReporter::Clock fn() {
    return [this] { return now; };
  }
};

TEST(Progress, TextGivesDoneTotalRateAndEta) {
  EXPECT_EQ(progressText(0, 5678, 0.0), "0/5678 candidates (0.0%), ETA --:--");
  EXPECT_EQ(progressText(0, 5678, 3.0), "0/5678 candidates (0.0%), ETA --:--");
  // 1000 in 2 s: 500/s, 4678 left: 9.356 s.
  EXPECT_EQ(progressText(1000, 5678, 2.0),
            "1000/5678 candidates (17.6%), 500/s, ETA 0:09");
  // Slow rates keep a decimal; ETAs past an hour show hours.
  EXPECT_EQ(progressText(3, 100000, 40.0),
            "3/100000 candidates (0.0%), 0.1/s, ETA 370:21:33");
  EXPECT_EQ(progressText(150, 1000, 2.0),
            "150/1000 candidates (15.0%), 75.0/s, ETA 0:11");
  EXPECT_EQ(progressText(1000, 1000, 8.0),
            "1000/1000 candidates (100.0%), 125/s, ETA 0:00");
  EXPECT_EQ(progressText(0, 0, 1.0), "0/0 candidates (100.0%), ETA --:--");
}

TEST(Progress, BarFillsInProportion) {
  EXPECT_EQ(progressBar(0, 10, 10), "[          ] ");
  EXPECT_EQ(progressBar(5, 10, 10), "[#####     ] ");
  EXPECT_EQ(progressBar(10, 10, 10), "[##########] ");
  EXPECT_EQ(progressBar(1, 3, 4), "[#   ] "); // rounds down: full means done
  EXPECT_EQ(progressBar(12, 10, 4), "[####] ");
  EXPECT_EQ(progressBar(0, 0, 4), "[####] ");
}

TEST(Progress, BarRedrawsInPlaceAtMostTenTimesASecond) {
  MemoryStream out;
  FakeClock clock;
  {
    ProgressReporter p(100, ProgressStyle::Bar, out.file(), clock.fn());
    // Binary fractions of a second, so that the sums are exact.
    p.update(1); // at the start: nothing yet
    EXPECT_EQ(out.text(), "");
    clock.now += 0.0625;
    p.update(2);
    EXPECT_EQ(out.text(), "");
    clock.now += 0.0625; // 0.125 s after the start
    p.update(10);
    const std::string first = "\r" + progressBar(10, 100, 24) +
                              progressText(10, 100, 0.125) + "\x1b[K";
    EXPECT_EQ(out.text(), first);
    EXPECT_EQ(first, "\r[##                      ] 10/100 candidates "
                     "(10.0%), 80.0/s, ETA 0:01\x1b[K");
    // 100 updates within the next 0.0977 s: throttled away.
    for (int i = 0; i < 100; ++i) {
      clock.now += 1.0 / 1024;
      p.update(11 + i % 5);
    }
    EXPECT_EQ(out.text(), first);
    clock.now += 1.0 / 256; // 0.1016 s after the last redraw
    p.update(50);
    EXPECT_EQ(out.text(), first + "\r" + progressBar(50, 100, 24) +
                              progressText(50, 100, clock.now - 1000.0) +
                              "\x1b[K");
    p.finish();
    EXPECT_EQ(out.text().substr(out.text().size() - 4), "\r\x1b[K");
    const size_t before = out.text().size();
    clock.now += 1;
    p.update(100); // after finish: nothing
    p.finish();
    EXPECT_EQ(out.text().size(), before);
  }
}

TEST(Progress, PlainLinesEveryFiveSecondsWhenNotATerminal) {
  MemoryStream out;
  FakeClock clock;
  ProgressReporter p(1000, ProgressStyle::Lines, out.file(), clock.fn());
  for (int i = 1; i <= 39; ++i) {
    clock.now += 0.125;
    p.update(i);
  }
  EXPECT_EQ(out.text(), ""); // 4.875 s
  clock.now += 0.125;
  p.update(100);
  EXPECT_EQ(out.text(),
            "proofc: progress " + progressText(100, 1000, 5.0) + "\n");
  clock.now += 4.0;
  p.update(400);
  clock.now += 1.0;
  p.update(600);
  EXPECT_EQ(out.text(), "proofc: progress " + progressText(100, 1000, 5.0) +
                            "\n" + "proofc: progress " +
                            progressText(600, 1000, 10.0) + "\n");
  const std::string text = out.text();
  p.finish(); // no bar to erase, nothing to add
  EXPECT_EQ(out.text(), text);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST(Progress, QuietWritesNothing) {
  MemoryStream out;
  FakeClock clock;
  {
    ProgressReporter p(10, ProgressStyle::Quiet, out.file(), clock.fn());
    for (int i = 0; i <= 10; ++i) {
      clock.now += 10;
      p.update(i);
    }
  }
  EXPECT_EQ(out.text(), "");
}

TEST(Progress, DestructorErasesABarThatIsShown) {
  MemoryStream out;
  FakeClock clock;
  {
    ProgressReporter p(10, ProgressStyle::Bar, out.file(), clock.fn());
    clock.now += 1;
    p.update(3);
  }
  const std::string text = out.text();
  ASSERT_GE(text.size(), 4u);
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K");
  // A bar never drawn is never erased.
  MemoryStream quietOut;
  {
    ProgressReporter p(10, ProgressStyle::Bar, quietOut.file(), clock.fn());
  }
  EXPECT_EQ(quietOut.text(), "");
}

TEST(Progress, StyleFollowsTheStream) {
  MemoryStream out;
  EXPECT_EQ(progressStyleFor(out.file(), false), ProgressStyle::Lines);
  EXPECT_EQ(progressStyleFor(out.file(), true), ProgressStyle::Quiet);
  // A pseudo-terminal, where one can be opened, is a terminal.
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0)
    GTEST_SKIP() << "no pseudo-terminal here";
  std::FILE *tty = std::fopen(::ptsname(master), "w");
  ASSERT_NE(tty, nullptr);
  EXPECT_EQ(progressStyleFor(tty, false), ProgressStyle::Bar);
  EXPECT_EQ(progressStyleFor(tty, true), ProgressStyle::Quiet);
  std::fclose(tty);
  ::close(master);
}

} // namespace
} // namespace proofc::test
