// thread_stacks.cpp - every thread's stack of a hung process, for a GPU
// machine without gdb, strace or perf.
//
// An LD_PRELOAD library. On SIGUSR2 to the process, the thread that takes
// it sends a real-time signal to every thread of the process (itself
// too), and each writes its backtrace (glibc's backtrace and
// backtrace_symbols_fd: "object(symbol+offset) [address]") to
// $PROOFC_STACKS_OUT (default stacks.txt), one after the other, followed
// by /proc/self/maps. Frames without an exported symbol give the object
// and the address; `addr2line -f -C -e OBJECT OFFSET` (the offset is the
// address less the object's first mapping) names them.
// backtrace() is not async-signal-safe in general; it is called once
// before any signal (so libgcc's unwinder is loaded) and the handlers run
// one at a time, which is what makes it usable on a process that is
// stuck anyway.
// A fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) writes the
// faulting thread's stack and the maps the same way, then takes its
// default action (the process's exit status is the crash's).
// Build: g++ -O2 -shared -fPIC bench/proto/thread_stacks.cpp -o stacks.so
// Use:   LD_PRELOAD=$PWD/stacks.so PROOFC_STACKS_OUT=s.txt <program> &
//        ...; kill -USR2 $pid; sleep 2; kill -9 $pid
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <execinfo.h>
#include <fcntl.h>
#include <initializer_list>
#include <sys/syscall.h>
#include <unistd.h>

static int outFd = -1;
static std::atomic<int> turn{0}; // the handlers write one at a time

static void writeString(const char *s) {
  if (write(outFd, s, strlen(s)) < 0)
    return;
}

static void dumpOne(int, siginfo_t *, void *) {
  int expected = 0;
  while (!turn.compare_exchange_weak(expected, 1))
    expected = 0;
  char line[128];
  snprintf(line, sizeof line, "\n--- thread %ld\n", (long)syscall(SYS_gettid));
  writeString(line);
  char comm[64] = {};
  snprintf(line, sizeof line, "/proc/self/task/%ld/comm",
           (long)syscall(SYS_gettid));
  int fd = open(line, O_RDONLY);
  if (fd >= 0) {
    if (read(fd, comm, sizeof comm - 1) > 0)
      writeString(comm);
    close(fd);
  }
  void *frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, outFd);
  turn.store(0);
}

static void writeMaps() {
  writeString("\n--- maps\n");
  int fd = open("/proc/self/maps", O_RDONLY);
  char buffer[4096];
  ssize_t got;
  while (fd >= 0 && (got = read(fd, buffer, sizeof buffer)) > 0)
    if (write(outFd, buffer, static_cast<size_t>(got)) < 0)
      break;
  if (fd >= 0)
    close(fd);
  fsync(outFd);
}

static void dumpAll(int, siginfo_t *, void *) {
  const pid_t pid = getpid();
  DIR *tasks = opendir("/proc/self/task");
  if (!tasks)
    return;
  while (dirent *e = readdir(tasks)) {
    const long tid = atol(e->d_name);
    if (tid > 0)
      syscall(SYS_tgkill, pid, tid, SIGRTMIN + 3);
  }
  closedir(tasks);
  sleep(1); // the threads' handlers run
  writeMaps();
}

// A fatal signal (a crash): the faulting thread's stack (its frames past
// the handler's and the signal trampoline's are the crash's), the maps,
// then the signal again with its default action (the exit status stays).
static void dumpFatal(int sig, siginfo_t *info, void *context) {
  char line[160];
  snprintf(line, sizeof line, "\n--- fatal signal %d (address %p)", sig,
           info ? info->si_addr : nullptr);
  writeString(line);
  dumpOne(sig, info, context);
  writeMaps();
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install() {
  const char *path = getenv("PROOFC_STACKS_OUT");
  outFd = open(path ? path : "stacks.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (outFd < 0)
    return;
  void *warm[2];
  backtrace(warm, 2); // loads the unwinder before any handler needs it
  struct sigaction one = {}, all = {};
  one.sa_sigaction = dumpOne;
  one.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGRTMIN + 3, &one, nullptr);
  all.sa_sigaction = dumpAll;
  all.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGUSR2, &all, nullptr);
  struct sigaction fatal = {};
  fatal.sa_sigaction = dumpFatal;
  fatal.sa_flags = SA_SIGINFO | SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    sigaction(sig, &fatal, nullptr);
}
