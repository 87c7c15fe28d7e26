// The zerosim binary loads CUDA and MPI only where they run (exec/backend_library.h): the
// commands that never touch a GPU or a second rank map none of cudart, cuBLASLt, NCCL, OpenMPI
// or the backend libraries; `run --backend cuda` loads libzerosim_cuda.so; and a backend library
// that is missing or is not one says so, naming the file, with exit code 1.
//
// What a process loaded is what the dynamic loader reports with LD_DEBUG=libs (glibc), written
// to a file of its own per process (LD_DEBUG_OUTPUT), so that the commands' own children
// (gnuplot) do not mix in.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

namespace fs = std::filesystem;
using testing::run_zerosim;

// The libraries of the GPU and multi-rank backends, as the loader names them.
const char* const kBackendLibraries[] = {"libzerosim_cuda", "libcudart", "libcublas",  "libnccl",
                                         "libzerosim_mpi",  "libmpi",    "libopen-pal"};

struct Loaded {
  int exit_code = -1;
  std::string libs;  // the loader's LD_DEBUG=libs report of zerosim's own process
};

class LazyBackendsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "zs_lazy_" + std::to_string(getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `zerosim ARGS` (output to a file in dir_) with `env` added to its environment and
  // returns its exit code and what the dynamic loader says it loaded.
  Loaded run_traced(const std::vector<std::string>& args,
                    const std::vector<std::string>& env = {}) {
    const std::string trace = dir_ + "/ld";
    std::vector<std::string> argv_s = {ZS_ZEROSIM_BIN};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    // Ours first, and none of the same names after them.
    std::vector<std::string> env_s = {"LD_DEBUG=libs", "LD_DEBUG_OUTPUT=" + trace};
    env_s.insert(env_s.end(), env.begin(), env.end());
    const std::size_t ours = env_s.size();
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      const std::string name = entry.substr(0, entry.find('=') + 1);
      bool shadowed = false;
      for (std::size_t i = 0; i < ours; ++i) shadowed |= env_s[i].starts_with(name);
      if (!shadowed) env_s.push_back(entry);
    }
    std::vector<char*> argv, envp;
    for (std::string& s : argv_s) argv.push_back(s.data());
    for (std::string& s : env_s) envp.push_back(s.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    const std::string out = dir_ + "/out.txt";
    const pid_t pid = fork();
    if (pid == 0) {
      if (std::freopen(out.c_str(), "w", stdout) == nullptr) _exit(127);
      if (std::freopen(out.c_str(), "a", stderr) == nullptr) _exit(127);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    Loaded r;
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream f(trace + "." + std::to_string(pid));
    r.libs.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    std::ifstream o(out);
    output_.assign(std::istreambuf_iterator<char>(o), std::istreambuf_iterator<char>());
    return r;
  }

  // Fails naming every backend library the trace shows; the trace must show libstdc++ (the
  // loader did report).
  void expect_no_backend(const std::string& command, const Loaded& r) {
    ASSERT_NE(r.libs.find("libstdc++"), std::string::npos) << command << ": no loader trace";
    for (const char* lib : kBackendLibraries) {
      EXPECT_EQ(r.libs.find(lib), std::string::npos) << command << " loaded " << lib;
    }
  }

  std::string dir_;
  std::string output_;  // the last run's stdout and stderr
};

const std::string kExample =
    std::string(ZS_SOURCE_DIR) + "/configs/examples/seed004_review_original.json";

TEST_F(LazyBackendsCli, CommandsThatRunNoGpuLoadNoBackend) {
  const std::string sweep = dir_ + "/sweep";
  const std::vector<std::vector<std::string>> commands = {
      {"--help"},
      {"check", kExample},
      {"simulate", kExample, "--model", "gpt2", "--gpu", "a100-80gb", "--json"},
      {"sweep", kExample, "--model", "gpt2", "--gpu", "a100-80gb", "--vary", "stage=1,2", "--out",
       sweep},
      {"report", sweep, "-o", dir_ + "/report.html"},
      {"tune", kExample, "--model", "gpt2", "--gpu", "a100-80gb", "--budget", "4", "--out",
       dir_ + "/tune"},
  };
  for (const auto& args : commands) {
    const Loaded r = run_traced(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << output_;
    expect_no_backend(args[0], r);
  }
}

// The CPU backend trains without CUDA or MPI.
TEST_F(LazyBackendsCli, RunOnTheCpuLoadsNoBackend) {
  const std::string cfg = testing::write_temp("lazy_run.json", R"({
    "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1,
    "optimizer": {"type": "AdamW", "params": {"lr": 2e-3}}, "zero_optimization": {"stage": 2}})");
  const Loaded r =
      run_traced({"run", cfg, "--model", "tiny-gpt", "--seq-len", "16", "--steps", "1"});
  EXPECT_EQ(r.exit_code, 0) << output_;
  expect_no_backend("run --backend cpu", r);
}

#if defined(ZS_TEST_HAVE_CUDA)

// --backend cuda loads the library on first use (and says whether there is a device; --steps 0
// stops the run after that check).
TEST_F(LazyBackendsCli, RunOnCudaLoadsTheCudaLibrary) {
  const Loaded r = run_traced({"run", kExample, "--model", "tiny-gpt", "--seq-len", "16",
                               "--backend", "cuda", "--steps", "0"});
  EXPECT_EQ(r.exit_code, 1) << output_;
  EXPECT_NE(r.libs.find("libzerosim_cuda.so"), std::string::npos) << r.libs;
  EXPECT_NE(r.libs.find("libcudart"), std::string::npos);
  EXPECT_EQ(r.libs.find("libzerosim_mpi"), std::string::npos);
}

// A missing library, a file that is no library, and a library without the entry point: exit 1
// with the path and the loader's words, for `run` and `calibrate`.
TEST_F(LazyBackendsCli, AMissingOrBrokenCudaLibraryIsAClearError) {
  const std::string empty = dir_ + "/empty";
  fs::create_directories(empty);
  const std::string env = "ZS_BACKEND_DIR=" + empty;
  const std::string lib = empty + "/libzerosim_cuda.so";
  const std::vector<std::string> run = {"run",       kExample, "--model",   "tiny-gpt",
                                        "--seq-len", "16",     "--backend", "cuda"};
  const std::vector<std::string> calibrate = {"calibrate", "--backend", "cuda", "-o",
                                              dir_ + "/cuda.json"};
  for (const auto& args : {run, calibrate}) {
    Loaded r = run_traced(args, {env});
    EXPECT_EQ(r.exit_code, 1) << output_;
    EXPECT_NE(output_.find("--backend cuda: cannot load " + lib +
                           ": cannot open shared object file: No such file or directory"),
              std::string::npos)
        << output_;
    EXPECT_NE(output_.find("use --backend cpu"), std::string::npos) << output_;
    EXPECT_NE(output_.find("ZS_BACKEND_DIR"), std::string::npos) << output_;
  }

  std::ofstream(lib) << std::string(4096, 'x');  // no library (longer than an ELF header)
  Loaded r = run_traced(run, {env});
  EXPECT_EQ(r.exit_code, 1) << output_;
  EXPECT_NE(output_.find("cannot load " + lib + ": "), std::string::npos) << output_;
  EXPECT_NE(output_.find("invalid ELF header"), std::string::npos) << output_;

  // A real library, but not the CUDA backend's.
  fs::remove(lib);
  fs::copy_file(ZS_STUB_LIBRARY, lib);
  r = run_traced(run, {env});
  EXPECT_EQ(r.exit_code, 1) << output_;
  EXPECT_NE(output_.find(lib + " has no entry point zs_exec_cuda_library"), std::string::npos)
      << output_;
}

#endif  // ZS_TEST_HAVE_CUDA

#if defined(ZS_TEST_HAVE_MPI)

// Started as one of several ranks without its library: exit 1 naming the file, before MPI.
TEST_F(LazyBackendsCli, AMissingMpiLibraryIsAClearError) {
  const std::string empty = dir_ + "/empty";
  fs::create_directories(empty);
  const Loaded r = run_traced({"run", kExample, "--model", "tiny-gpt", "--seq-len", "16"},
                              {"ZS_BACKEND_DIR=" + empty, "OMPI_COMM_WORLD_SIZE=2"});
  EXPECT_EQ(r.exit_code, 1) << output_;
  EXPECT_NE(output_.find("started as one of 2 processes by a launcher (mpirun, srun), and MPI's "
                         "library did not load: cannot load " +
                         empty +
                         "/libzerosim_mpi.so: cannot open shared object file: No such "
                         "file or directory"),
            std::string::npos)
      << output_;
  EXPECT_NE(output_.find("; or run one process"), std::string::npos) << output_;
}

#endif  // ZS_TEST_HAVE_MPI

}  // namespace
}  // namespace zs
