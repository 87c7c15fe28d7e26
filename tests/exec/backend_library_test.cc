// Loading the backend libraries (exec/backend_library.h): where they are looked for, what a
// missing one says, and the entry points' interface check. The build's libraries are in
// ZS_BINARY_DIR (tests/exec/CMakeLists.txt).
#include "exec/backend_library.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "exec/cuda_library.h"
#include "exec/mpi_library.h"

namespace zs::exec {
namespace {

// Sets (or, with nullopt, unsets) $ZS_BACKEND_DIR for its lifetime.
class BackendDirOverride {
 public:
  explicit BackendDirOverride(const std::optional<std::string>& dir) {
    if (const char* old = std::getenv(kBackendDirVariable)) old_ = old;
    if (dir) {
      setenv(kBackendDirVariable, dir->c_str(), 1);
    } else {
      unsetenv(kBackendDirVariable);
    }
  }
  ~BackendDirOverride() {
    if (old_) {
      setenv(kBackendDirVariable, old_->c_str(), 1);
    } else {
      unsetenv(kBackendDirVariable);
    }
  }
  BackendDirOverride(const BackendDirOverride&) = delete;
  BackendDirOverride& operator=(const BackendDirOverride&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(BackendLibrary, DirIsTheVariablesElseTheExecutables) {
  {
    BackendDirOverride dir("/opt/zerosim/lib");
    auto d = backend_library_dir();
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(*d, "/opt/zerosim/lib");
  }
  for (const std::optional<std::string>& unset :
       {std::optional<std::string>(), std::optional<std::string>("")}) {
    BackendDirOverride dir(unset);
    auto d = backend_library_dir();
    ASSERT_TRUE(d.ok()) << d.status().message();
    char exe[4096] = {};
    ASSERT_GT(readlink("/proc/self/exe", exe, sizeof exe - 1), 0);
    EXPECT_EQ(*d + "/", std::string(exe).substr(0, std::string(exe).rfind('/') + 1));
  }
}

TEST(BackendLibrary, AMissingLibraryNamesItsPathAndTheLoadersError) {
  BackendDirOverride dir("/nonexistent-zerosim-dir");
  auto s = load_backend_symbol("libzerosim_nothing.so", "zs_nothing", false);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_NE(
      s.status().message().find("cannot load /nonexistent-zerosim-dir/libzerosim_nothing.so: "),
      std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("No such file or directory"), std::string::npos);
}

TEST(BackendLibrary, AbiDescribesVersionAndSizes) {
  EXPECT_EQ(describe_abi(BackendAbi{3, {1, 2, 3, 4, 5, 6}}), "3/1,2,3,4,5,6");
  const Status s = backend_abi_mismatch("libzerosim_x.so", BackendAbi{1, {8}}, BackendAbi{2, {8}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "libzerosim_x.so was built from other sources (interface 1/8,0,0,0,0,0, this "
            "program's 2/8,0,0,0,0,0): rebuild both");
  EXPECT_TRUE(kCudaLibraryAbi == kCudaLibraryAbi);
  BackendAbi other = kCudaLibraryAbi;
  other.version += 1;
  EXPECT_FALSE(other == kCudaLibraryAbi);
}

#if defined(ZS_TEST_HAVE_CUDA)

// The entry point hands out the backend to a caller of the same interface only, and says its
// own; the library loads here (no device needed).
TEST(BackendLibrary, CudaEntryChecksTheInterface) {
  BackendDirOverride dir(std::string(ZS_BINARY_DIR));
  auto entry = load_backend_symbol(kCudaLibraryFile, kCudaLibraryEntry, false);
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  const auto call = reinterpret_cast<BackendEntry<CudaLibrary>>(*entry);
  BackendAbi library;
  EXPECT_NE(call(&kCudaLibraryAbi, &library), nullptr);
  EXPECT_TRUE(library == kCudaLibraryAbi);
  BackendAbi stale = kCudaLibraryAbi;
  stale.sizes[2] += 8;  // an ExecOptions of another build
  library = BackendAbi{};
  EXPECT_EQ(call(&stale, &library), nullptr);
  EXPECT_TRUE(library == kCudaLibraryAbi);

  auto cuda = load_cuda_library();
  ASSERT_TRUE(cuda.ok()) << cuda.status().message();
  const Status device = (*cuda)->device_status();
  if (!device.is_ok()) {
    EXPECT_NE(device.message().find("this machine has no CUDA device"), std::string::npos)
        << device.message();
    EXPECT_EQ((*cuda)->device_name(), "");
  }
}

TEST(BackendLibrary, AMissingCudaLibrarySaysUseTheCpu) {
  BackendDirOverride dir("/nonexistent-zerosim-dir");
  auto cuda = load_cuda_library();
  ASSERT_FALSE(cuda.ok());
  EXPECT_EQ(cuda.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = cuda.status().message();
  EXPECT_EQ(m.rfind("--backend cuda: cannot load /nonexistent-zerosim-dir/libzerosim_cuda.so: ", 0),
            0u)
      << m;
  EXPECT_NE(m.find("; use --backend cpu"), std::string::npos) << m;
}

#endif  // ZS_TEST_HAVE_CUDA

#if defined(ZS_TEST_HAVE_MPI)

TEST(BackendLibrary, MpiEntryChecksTheInterface) {
  BackendDirOverride dir(std::string(ZS_BINARY_DIR));
  auto entry = load_backend_symbol(kMpiLibraryFile, kMpiLibraryEntry, true);
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  const auto call = reinterpret_cast<BackendEntry<MpiLibrary>>(*entry);
  BackendAbi library;
  EXPECT_NE(call(&kMpiLibraryAbi, &library), nullptr);
  EXPECT_TRUE(library == kMpiLibraryAbi);
  BackendAbi stale = kMpiLibraryAbi;
  stale.version += 1;
  EXPECT_EQ(call(&stale, &library), nullptr);
  EXPECT_TRUE(load_mpi_library().ok());
}

#endif  // ZS_TEST_HAVE_MPI

}  // namespace
}  // namespace zs::exec
