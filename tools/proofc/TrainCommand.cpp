//===- TrainCommand.cpp - proofc train ------------------------------------===//
//
// Training runs in Python (the learner is PyTorch, the rollouts are the
// package's Evaluator.rollouts), so `proofc train ARGS` replaces this process
// by `PYTHON -m proofc.training ARGS`: python/proofc/training/cli.py parses
// ARGS (its --help is the command's) and reports errors as this driver does.
// The package is the one built or installed with this binary, found relative
// to it and put first on PYTHONPATH: <bin>/../python in the build tree, the
// package directory of `cmake --install` in a prefix (both relative paths are
// compiled in, tools/proofc/CMakeLists.txt). PROOFC_BIN is set to this binary
// unless given, so the package compiles programs with this proofc. The
// interpreter: $PROOFC_PYTHON, else the Python the package was built for,
// else python3 on PATH. docs/training.md ("Command line").
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "support/Fail.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace proofc;

namespace {

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string thisBinary() {
  std::vector<char> buffer(4096);
  ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0)
    fail("train: cannot find this binary's path (/proc/self/exe: {})",
         std::strerror(errno));
  return std::string(buffer.data(), static_cast<size_t>(n));
}

/// The directory holding this binary's package proofc (with its training
/// subpackage), or "" when neither candidate has it.
std::string packageDirectory(const std::string &binDir) {
#ifdef PROOFC_TRAIN_PACKAGE_DIRS
  for (const char *relative : {PROOFC_TRAIN_PACKAGE_DIRS}) {
    std::string dir =
        relative[0] == '/' ? std::string(relative) : binDir + "/" + relative;
    if (isFile(dir + "/proofc/training/__main__.py"))
      return dir;
  }
#else
  (void)binDir;
#endif
  return "";
}

} // namespace

void driver::trainCommand(int argc, char **argv) {
#ifndef PROOFC_TRAIN_PACKAGE_DIRS
  (void)argc;
  (void)argv;
  fail("train: this proofc was built without its Python package "
       "(PROOFC_PYTHON=OFF), which proofc train runs; rebuild with pybind11, "
       "Python headers and numpy (docs/training.md)");
#else
  std::string binary = thisBinary();
  std::string binDir = binary.substr(0, binary.rfind('/'));
  std::string package = packageDirectory(binDir);
  if (package.empty())
    fail("train: cannot find the Python package proofc beside {} (looked in "
         "{}/../python and the install prefix's package directory); set "
         "PROOFC_PYTHON and PYTHONPATH and run `python3 -m proofc.training`",
         binary, binDir);
  const char *given = std::getenv("PROOFC_PYTHON");
  std::string python = given && *given ? given : PROOFC_TRAIN_PYTHON;
  if (!(given && *given) && !isFile(python))
    python = "python3"; // the build's interpreter is gone: PATH's
  const char *oldPath = std::getenv("PYTHONPATH");
  std::string path = package;
  if (oldPath && *oldPath)
    path += std::string(":") + oldPath;
  ::setenv("PYTHONPATH", path.c_str(), 1);
  ::setenv("PROOFC_BIN", binary.c_str(), 0);

  std::vector<char *> args;
  std::string module = "proofc.training", dashM = "-m";
  args.push_back(python.data());
  args.push_back(dashM.data());
  args.push_back(module.data());
  for (int i = 0; i < argc; ++i)
    args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execvp(python.c_str(), args.data());
  fail("train: cannot run the Python interpreter '{}' ({}): proofc train "
       "runs its learner in Python with numpy and PyTorch; set PROOFC_PYTHON "
       "to such a python3",
       python, std::strerror(errno));
#endif
}
