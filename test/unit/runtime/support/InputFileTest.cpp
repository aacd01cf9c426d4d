//===- InputFileTest.cpp - What proofc reads is a regular file ------------===//
//
// InputFile.h: a FIFO (without a writer: open() alone would block), a
// socket, a device and a directory are refused at once, naming the path;
// the part reader and the proofs-part sniffing of `proofc merge` open their
// files the same way (before: a FIFO part blocked for ever).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "support/FileIO.h"
#include "support/InputFile.h"
#include "tooling/PartFile.h"
#include "tooling/ProofParts.h"

#include <gtest/gtest.h>

#include <chrono>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace proofc::test {
namespace {

TEST(InputFile, ARegularFileIsReadAtAnyOffset) {
  const TempDir dir;
  const std::string path = dir.write("f", "0123456789");
  const InputFile file(path);
  EXPECT_EQ(file.size(), 10u);
  char buffer[8] = {};
  EXPECT_EQ(file.readAt(6, buffer, 8), 4u);
  EXPECT_EQ(std::string(buffer, 4), "6789");
  EXPECT_EQ(file.readAt(10, buffer, 8), 0u);
  EXPECT_EQ(file.readAt(~uint64_t{0} - 3, buffer, 8), 0u); // past off_t
}

TEST(InputFile, FifoDeviceDirectoryAndSocketAreRefusedAtOnce) {
  const TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string sock = dir.file("sock");
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, sock.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::pair<std::string, std::string> cases[] = {
      {fifo, fifo + ": cannot read: not a regular file (a FIFO)"},
      {sock, sock + ": cannot read: not a regular file (a socket)"},
      {"/dev/null", "/dev/null: cannot read: not a regular file (a character "
                    "device)"},
      {"/dev/zero", "/dev/zero: cannot read: not a regular file (a character "
                    "device)"},
      {dir.path(), dir.path() + ": cannot read: is a directory"},
  };
  for (const auto &c : cases) {
    // Named copies: a lambda may not capture a structured binding (C++17).
    const std::string &path = c.first, &message = c.second;
    EXPECT_EQ(errorOf([&] { InputFile f(path); }), message);
    EXPECT_EQ(errorOf([&] { readFile(path); }), message);
    // The part and proofs-part readers, and merge's sniffing.
    EXPECT_EQ(errorOf([&] { readPart(path); }), message);
    EXPECT_EQ(errorOf([&] { readProofsPart(path); }), message);
    std::vector<std::string> files{path};
    EXPECT_TRUE(takeProofsParts(files).empty());
    EXPECT_EQ(files.size(), 1u); // left for its reader to name
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ::close(s);
}

TEST(InputFile, ALinkIsFollowedToWhatItNames) {
  const TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string link = dir.file("link.part");
  ASSERT_EQ(::symlink(fifo.c_str(), link.c_str()), 0);
  EXPECT_EQ(errorOf([&] { readPart(link); }),
            link + ": cannot read: not a regular file (a FIFO)");
  const std::string file = dir.write("f", "abc");
  const std::string fileLink = dir.file("f-link");
  ASSERT_EQ(::symlink(file.c_str(), fileLink.c_str()), 0);
  EXPECT_EQ(readFile(fileLink), "abc");
}

} // namespace
} // namespace proofc::test
