// Reading inputs: regular files only, and never more than the limit.
#include "common/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace zs {
namespace {

std::string temp(const std::string& name) {
  return ::testing::TempDir() + "zs_file_" + std::to_string(getpid()) + "_" + name;
}

TEST(ReadFile, ReadsARegularFile) {
  const std::string p = temp("ok.json");
  std::ofstream(p) << "{\"a\": 1}";
  auto r = read_file(p, "JSON file");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "{\"a\": 1}");
}

TEST(ReadFile, RefusesDevicesAndFifosInsteadOfReadingForever) {
  // `check /dev/zero` grew past 6 GB before.
  auto zero = read_file("/dev/zero", "JSON file");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "/dev/zero: error[file]: is a character device, not a regular file; expected a JSON "
            "file (save it to a file first)");
  const std::string fifo = temp("fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = read_file(fifo, "JSON file");  // no writer: must not block
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.status().message().find("is a FIFO (pipe)"), std::string::npos);
  ::unlink(fifo.c_str());
}

TEST(ReadFile, RefusesFilesPastTheLimit) {
  const std::string p = temp("big.json");
  std::ofstream(p) << std::string(5000, ' ');
  auto r = read_file(p, "JSON file", 4096);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("holds 4.9 KiB; a JSON file may hold at most 4.0 KiB"),
            std::string::npos)
      << r.status().message();
  EXPECT_TRUE(read_file(p, "JSON file", 5000).ok());
  // Issue 28 item 18: one byte over, the rounded figures read the same; exact counts instead.
  auto over = read_file(p, "JSON file", 4999);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("holds 5,000 bytes; a JSON file may hold at most 4,999 "
                                         "bytes"),
            std::string::npos)
      << over.status().message();
}

TEST(ReadFile, NamesAMissingFileAndADirectory) {
  auto missing = read_file(temp("missing.json"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto dir = read_file(::testing::TempDir(), "config");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("is a directory, not a config"), std::string::npos);
}

}  // namespace
}  // namespace zs
