// Writing outputs: never through a planted link, never replacing a device or a link, never half a
// file or a mixed set, and nothing left behind when interrupted.
#include "common/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace zs {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test (ctest runs tests in parallel processes).
class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("zs_out_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void write(const std::string& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }
  // The names in the directory, sorted (temporary files would show up here).
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

// check_output_file finds, without writing, what write_output_file refuses (issue 28 item 15:
// before minutes of work); is_device_output tells a device from a file (item 14).
TEST_F(OutputFileTest, CheckFindsWhatAWriteWouldRefuseWithoutWriting) {
  EXPECT_TRUE(check_output_file(path("new.json")).is_ok());
  write(path("old.json"), "x");
  EXPECT_TRUE(check_output_file(path("old.json")).is_ok());
  EXPECT_TRUE(check_output_file("/dev/null").is_ok());
  fs::create_directories(path("d"));
  fs::create_symlink(path("nowhere/x"), path("dangling"));
  fs::create_symlink(path("d"), path("to_dir"));
  const std::pair<std::string, std::string> refused[] = {
      {"", "an output file name is required"},    {path("d"), "is a directory"},
      {path("dangling"), "does not exist"},       {path("to_dir"), "leads to a directory"},
      {path("missing/x.json"), "does not exist"},
  };
  for (const auto& [p, why] : refused) {
    const Status s = check_output_file(p);
    EXPECT_FALSE(s.is_ok()) << p;
    EXPECT_NE(s.message().find(why), std::string::npos) << p << ": " << s.message();
  }
  EXPECT_EQ(entries(), (std::vector<std::string>{"d", "dangling", "old.json", "to_dir"}));
  EXPECT_TRUE(is_device_output("/dev/null"));
  EXPECT_FALSE(is_device_output(path("old.json")));
  EXPECT_FALSE(is_device_output(path("new.json")));
}

TEST_F(OutputFileTest, NewAndExistingFilesAreReplacedWholeWithNoTemporaryLeft) {
  const std::string p = path("out.json");
  ASSERT_TRUE(write_output_file(p, "first").is_ok());
  EXPECT_EQ(read(p), "first");
  ::chmod(p.c_str(), 0640);
  ASSERT_TRUE(write_output_file(p, "second").is_ok());
  EXPECT_EQ(read(p), "second");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the old file's permissions
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputFileTest, APlantedLinkAtTheOldTemporaryNameIsNotFollowed) {
  // zerosim used to write "<path>.tmp" without O_EXCL: a link planted there redirected the write.
  const std::string victim = path("victim");
  write(victim, "secret");
  fs::create_symlink(victim, path("out.json.tmp"));
  ASSERT_TRUE(write_output_file(path("out.json"), "report").is_ok());
  EXPECT_EQ(read(victim), "secret");
  EXPECT_EQ(read(path("out.json")), "report");
  EXPECT_EQ(entries(), (std::vector<std::string>{"out.json", "out.json.tmp", "victim"}));
}

TEST_F(OutputFileTest, ALinkIsWrittenThroughAndStaysALink) {
  const std::string target = path("real.html");
  write(target, "old");
  fs::create_symlink(target, path("link.html"));
  ASSERT_TRUE(write_output_file(path("link.html"), "new").is_ok());
  EXPECT_TRUE(fs::is_symlink(path("link.html")));
  EXPECT_EQ(read(target), "new");
}

TEST_F(OutputFileTest, ADanglingLinkIsRefusedNotCreatedThrough) {
  fs::create_symlink(path("nowhere"), path("link.html"));
  const Status s = write_output_file(path("link.html"), "x");
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("does not exist"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(path("nowhere")));
}

TEST_F(OutputFileTest, ACharacterDeviceIsWrittenThroughAndStaysADevice) {
  ASSERT_TRUE(write_output_file("/dev/null", std::string(100000, 'x')).is_ok());
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFileTest, AFullDeviceIsAnError) {
  const Status s = write_output_file("/dev/full", "x");
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("/dev/full: error[file]: writing failed"), std::string::npos)
      << s.message();
}

TEST_F(OutputFileTest, AFifoIsWrittenThroughWhenReadAndRefusedWhenNot) {
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Status unread = write_output_file(fifo, "x");  // nobody reads: no hang
  EXPECT_FALSE(unread.is_ok());
  EXPECT_NE(unread.message().find("nobody is reading"), std::string::npos) << unread.message();

  std::string got;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    char buf[64];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, n);
    ::close(fd);
  });
  Status s;
  for (int attempt = 0; attempt < 500; ++attempt) {  // until the reader has opened its end
    s = write_output_file(fifo, "through the pipe");
    if (s.is_ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reader.join();
  EXPECT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(got, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(OutputFileTest, ADirectoryIsRefused) {
  const Status s = write_output_file(dir_.string(), "x");
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
}

TEST_F(OutputFileTest, SameFileFollowsLinks) {
  write(path("a"), "x");
  fs::create_symlink(path("a"), path("b"));
  EXPECT_TRUE(same_file(path("a"), path("b")));
  EXPECT_TRUE(same_file(path("a"), dir_.string() + "/./a"));
  EXPECT_FALSE(same_file(path("a"), path("missing")));
}

// A SIGHUP with a handler, blocked, and pending once raised: what a Ctrl-C looks like to a
// writer that holds signals. Declared before what it interrupts, so that the handler is still
// there when the writer lets the signal go.
class PendingHangup {
 public:
  explicit PendingHangup(bool raise_now = true) {
    struct sigaction sa {};
    sa.sa_handler = [](int) { delivered_ = true; };
    sigaction(SIGHUP, &sa, &old_action_);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
    delivered_ = false;
    if (raise_now) raise(SIGHUP);
  }
  void raise_now() { raise(SIGHUP); }
  ~PendingHangup() {
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);  // the handler runs here
    sigaction(SIGHUP, &old_action_, nullptr);
  }
  static bool delivered() { return delivered_; }

 private:
  static inline volatile sig_atomic_t delivered_ = false;
  struct sigaction old_action_ {};
  sigset_t old_mask_{};
};

TEST_F(OutputFileTest, AnInterruptStopsTheWriteAndLeavesTheOldFileAndNoTemporary) {
  const std::string p = path("trace.json");
  write(p, "old");
  {
    PendingHangup hup;
    const Status s = write_output_file(p, std::string(8 << 20, 'x'));
    EXPECT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("interrupted"), std::string::npos) << s.message();
    EXPECT_FALSE(PendingHangup::delivered());  // held until the writer was done
  }
  EXPECT_TRUE(PendingHangup::delivered());
  EXPECT_EQ(read(p), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"trace.json"});
}

TEST_F(OutputFileTest, AnIgnoredSignalIsNoInterrupt) {
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGHUP, &ignore, &old);
  sigset_t set, old_mask;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, &old_mask);
  raise(SIGHUP);  // pends while blocked, but does nothing once let go
  EXPECT_TRUE(write_output_file(path("out"), "x").is_ok());
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGHUP, &old, nullptr);
}

TEST_F(OutputFileTest, ASetIsReplacedTogetherAndAStaleMemberRemoved) {
  const std::string out = path("sweep");
  fs::create_directories(out);
  write(out + "/a.json", "old a");
  write(out + "/b.csv", "old b");
  write(out + "/best.json", "old best");
  write(out + "/notes.txt", "mine");  // not a member: untouched
  {
    auto set = OutputSet::begin(out, {"a.json", "b.csv", "best.json"});
    ASSERT_TRUE(set.ok()) << set.status().message();
    ASSERT_TRUE((*set)->write("a.json", "new a").is_ok());
    auto b = (*set)->open("b.csv");
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE(b->write("new ").is_ok());
    ASSERT_TRUE(b->write("b").is_ok());
    ASSERT_TRUE(b->close().is_ok());
    EXPECT_EQ(read(out + "/a.json"), "old a");  // nothing moves before the commit
    ASSERT_TRUE((*set)->commit().is_ok());
  }
  EXPECT_EQ(read(out + "/a.json"), "new a");
  EXPECT_EQ(read(out + "/b.csv"), "new b");
  EXPECT_FALSE(fs::exists(out + "/best.json"));  // not written this time: a stale winner
  EXPECT_EQ(read(out + "/notes.txt"), "mine");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(out)) left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"a.json", "b.csv", "notes.txt"}));
}

TEST_F(OutputFileTest, AnAbandonedSetLeavesTheOldFilesAndNoStaging) {
  const std::string out = path("sweep");
  fs::create_directories(out);
  write(out + "/a.json", "old a");
  {
    auto set = OutputSet::begin(out, {"a.json", "b.csv"});
    ASSERT_TRUE(set.ok());
    ASSERT_TRUE((*set)->write("a.json", "new a").is_ok());
    // Dropped without commit: a failed write or an error after it.
  }
  EXPECT_EQ(read(out + "/a.json"), "old a");
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

TEST_F(OutputFileTest, AnInterruptBeforeTheCommitLeavesTheOldSet) {
  const std::string out = path("sweep");
  fs::create_directories(out);
  write(out + "/a.json", "old a");
  {
    PendingHangup hup(/*raise_now=*/false);
    auto set = OutputSet::begin(out, {"a.json"});
    ASSERT_TRUE(set.ok());
    ASSERT_TRUE((*set)->write("a.json", "new a").is_ok());
    hup.raise_now();
    EXPECT_TRUE((*set)->interrupted());
    const Status s = (*set)->commit();
    EXPECT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("unchanged"), std::string::npos) << s.message();
  }
  EXPECT_EQ(read(out + "/a.json"), "old a");
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

TEST_F(OutputFileTest, ADirectoryASetCreatedGoesWhenAbandoned) {
  const std::string out = path("new_dir");
  {
    auto set = OutputSet::begin(out, {"a.json"});
    ASSERT_TRUE(set.ok());
    EXPECT_TRUE(fs::is_directory(out));
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(OutputFileTest, AMemberThatIsNotARegularFileIsRefused) {
  const std::string out = path("sweep");
  fs::create_directories(out + "/a.json");
  auto set = OutputSet::begin(out, {"a.json"});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("a.json: error[file]: is a directory"), std::string::npos)
      << set.status().message();
  write(path("file"), "x");
  auto not_dir = OutputSet::begin(path("file"), {"a.json"});
  ASSERT_FALSE(not_dir.ok());
  EXPECT_NE(not_dir.status().message().find("is not a directory"), std::string::npos)
      << not_dir.status().message();
}

}  // namespace
}  // namespace zs
