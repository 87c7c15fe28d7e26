// End to end, the command-level failures that probing every command with bad and extreme input
// found (issue 13, reports/reliability.md): each test names the item it pins.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/cli/probe_fixture.h"
#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

namespace fs = std::filesystem;
using testing::run_zerosim;

class ReliabilityCli : public testing::ProbeFixture {
 protected:
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Every file under `d` with its bytes.
  static std::map<std::string, std::string> snapshot(const std::string& d) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(d)) {
      out[e.path().string()] = e.is_regular_file() ? read(e.path().string()) : "<dir>";
    }
    return out;
  }

};

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// zerosim in a child process with stdout and stderr on pipes, for tests that signal it or read
// its output as it comes.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    int out[2], err[2];
    EXPECT_EQ(pipe(out), 0);
    EXPECT_EQ(pipe(err), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      dup2(err[1], 2);
      close(out[0]);
      close(err[0]);
      // SIGINT and SIGTERM as a user's shell leaves them, whatever the test runner set.
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(ZS_ZEROSIM_BIN));
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(ZS_ZEROSIM_BIN, argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_ = out[0];
    err_ = err[0];
    fcntl(out_, F_SETFL, O_NONBLOCK);
    fcntl(err_, F_SETFL, O_NONBLOCK);
  }
  ~Child() {
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
    close(err_);
  }
  // Reads what is there until `needle` shows up on stdout or stderr, or `timeout_s` passes.
  bool wait_for(const std::string& needle, double timeout_s) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      drain();
      if (has(out_text, needle) || has(err_text, needle)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
  void signal_it(int sig) { kill(pid_, sig); }
  // The wait status.
  int wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    waited_ = true;
    fcntl(out_, F_SETFL, 0);
    fcntl(err_, F_SETFL, 0);
    drain();
    return status;
  }

  std::string out_text, err_text;

 private:
  void drain() {
    char buf[4096];
    for (ssize_t n; (n = read(out_, buf, sizeof buf)) > 0;) out_text.append(buf, n);
    for (ssize_t n; (n = read(err_, buf, sizeof buf)) > 0;) err_text.append(buf, n);
  }
  pid_t pid_ = -1;
  int out_ = -1, err_ = -1;
  bool waited_ = false;
};

// Items 1 and 2: outputs onto devices and links, and the planted temporary link.
TEST_F(ReliabilityCli, OutputsWriteThroughDevicesAndLinksAndNeverFollowAPlantedLink) {
  auto r = run_zerosim("simulate " + c_ + " --model gpt2 --gpu a100-80gb --trace /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));

  const std::string real = write("real.json", "old");
  fs::create_symlink(real, dir_ + "/link.json");
  r = run_zerosim("simulate " + c_ + " --model gpt2 --gpu a100-80gb --trace " + dir_ +
                  "/link.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir_ + "/link.json"));
  EXPECT_TRUE(has(read(real), "traceEvents"));

  const std::string victim = write("victim", "secret");
  fs::create_symlink(victim, dir_ + "/t.json.tmp");
  r = run_zerosim("simulate " + c_ + " --model gpt2 --gpu a100-80gb --trace " + dir_ + "/t.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read(victim), "secret");
  EXPECT_TRUE(has(read(dir_ + "/t.json"), "traceEvents"));
}

// Items 3, 4 and 17: an interrupted sweep leaves the old set as it was and no staging
// directory; a long sweep is announced first.
TEST_F(ReliabilityCli, AnInterruptedSweepLeavesTheOldSetWhole) {
  const std::string out = dir_ + "/sweep";
  auto r =
      run_zerosim("sweep " + c_ + " --model gpt2 --gpu a100-80gb --vary stage=1,2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto before = snapshot(out);
  ASSERT_EQ(before.size(), 3u);  // results.json, results.csv, best_ds_config.json
  // 200,000 variants: over 10,000, so it warns, and still running when signalled.
  Child sweep({"sweep", c_, "--model", "gpt2", "--gpu", "a100-80gb", "--jobs", "2", "--vary",
               "micro_batch=1..250:+1", "--vary",
               "zero_optimization.reduce_bucket_size=1e6..1e8:+1e6", "--vary",
               "overlap_comm=true,false", "--vary", "stage=0,1,2,3", "--out", out});
  ASSERT_TRUE(sweep.wait_for("warning: 200,001 rows", 60)) << sweep.err_text;
  EXPECT_TRUE(has(sweep.err_text, "of memory and ")) << sweep.err_text;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // rows are being written
  sweep.signal_it(SIGTERM);
  const int status = sweep.wait();
  ASSERT_TRUE(WIFSIGNALED(status)) << sweep.err_text;  // it ends as the signal asks
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(has(sweep.err_text, "interrupted; the files already there are unchanged"))
      << sweep.err_text;
  EXPECT_EQ(snapshot(out), before);
}

// Item 3: a sweep replaces the whole set, and a winner that no longer exists goes with it.
TEST_F(ReliabilityCli, ASecondSweepReplacesTheSetAndItsStaleWinner) {
  const std::string out = dir_ + "/sweep";
  auto r =
      run_zerosim("sweep " + c_ + " --model gpt2 --gpu a100-80gb --vary stage=1,2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::exists(out + "/best_ds_config.json"));
  r = run_zerosim("sweep " + c_ + " --model llama2-70b --gpu a100-80gb --gpus-per-node 1 " +
                  "--vary stage=1,2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(out + "/best_ds_config.json"));
  EXPECT_TRUE(has(read(out + "/results.json"), "llama2-70b"));
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 2);
}

// Items 5, 20 and 28: a report never overwrites its input, and shows only the winner's config.
TEST_F(ReliabilityCli, AReportRefusesToOverwriteItsInputsOrShowAnotherRunsConfig) {
  const std::string out = dir_ + "/sweep";
  auto r =
      run_zerosim("sweep " + c_ + " --model gpt2 --gpu a100-80gb --vary stage=1,2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string results = read(out + "/results.json");
  r = run_zerosim("report " + out + " -o " + out + "/results.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "a file this report reads")) << r.output;
  EXPECT_EQ(read(out + "/results.json"), results);
  EXPECT_EQ(run_zerosim("report " + out + " -o " + out + "/best_ds_config.json").exit_code, 1);

  const std::string best = read(out + "/best_ds_config.json");
  write("sweep/best_ds_config.json", best.substr(0, best.size() / 2));  // cut short
  r = run_zerosim("report " + out + " -o " + dir_ + "/report.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "the tuned config is not valid JSON")) << r.output;
  write("sweep/best_ds_config.json", R"({"train_micro_batch_size_per_gpu": 64})");
  r = run_zerosim("report " + out + " -o " + dir_ + "/report.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "is not the config")) << r.output;
  EXPECT_FALSE(fs::exists(dir_ + "/report.html"));

  write("sweep/best_ds_config.json", best);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(results);
  j["best"] = std::to_string(j["best"].get<int>());  // "best": "1"
  write("sweep/results.json", j.dump());
  r = run_zerosim("report " + out + " -o " + dir_ + "/report.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "best: expected an integer row id, got string")) << r.output;
}

// Item 6: a failed write to stdout is an error.
TEST_F(ReliabilityCli, AFailedWriteToStdoutExitsOne) {
  const std::string err = dir_ + "/err.txt";
  const int status =
      std::system((std::string(ZS_ZEROSIM_BIN) + " check " + c_ + " >/dev/full 2>" + err).c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_TRUE(has(read(err), "zerosim: error[file]: writing to standard output failed"))
      << read(err);
}

// Items 8, 9 and 10: absurd rates are refused at the input, and no input hangs the engine.
TEST_F(ReliabilityCli, AbsurdRatesAreRefusedAndNeverHangOrWrap) {
  const std::string slow_nic = write("nic.json", R"({"preset": "h100", "nodes": 2,
      "overrides": {"node": {"nic_bw_bytes_per_s": 0.01}}})");
  auto r = run_zerosim("simulate " + c_ + " --model gpt2 --cluster " + slow_nic);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "nic_bw_bytes_per_s: 0.01 is not allowed")) << r.output;
  const std::string flops = write("flops.json", R"({"preset": "h100",
      "overrides": {"gpu": {"bf16_flops_per_s": 1}}})");
  r = run_zerosim("simulate " + c_ + " --model gpt2 --cluster " + flops);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (const char* profile :
       {R"({"hbm_efficiency": 1e-20})", R"({"nic_busbw_bytes_per_s": 1e-7})"}) {
    const std::string p = write("profile.json", profile);
    r = run_zerosim("simulate " + c_ + " --model gpt2 --gpu h100 --nodes 2 --profile " + p);
    EXPECT_EQ(r.exit_code, 1) << profile << r.output;
    EXPECT_TRUE(has(r.output, "allowed: a number from")) << r.output;
  }
}

// Item 8: a variant the engine cannot time fails alone; the sweep goes on.
TEST_F(ReliabilityCli, ASweepRowThatCannotBeTimedFailsAlone) {
  // At the lowest rates allowed, 1,000 micro-steps of 100,000 GPT-2 sequences take longer than
  // the engine's 73-year horizon: that row fails with the reason, the others run.
  const std::string slow = write("slow.json", R"({"gpu": {"fp32_flops_per_s": 1e9,
      "bf16_flops_per_s": 1e9, "hbm_bytes": 85899345920, "hbm_bw_bytes_per_s": 1e9,
      "sm_count": 1, "pcie_gen": 4, "pcie_bw_bytes_per_s": 1e6}, "node_preset": "dgx-h100",
      "gpus_per_node": 1})");
  const std::string out = dir_ + "/sweep";
  const auto r = run_zerosim("sweep " + c_ + " --model gpt2 --cluster " + slow +
                             " --micro-batch 100000 --vary grad_accum=1,1000 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(read(out + "/results.json"));
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][1]["status"], "ok");
  EXPECT_EQ(j["rows"][2]["status"], "invalid");
  EXPECT_TRUE(has(j["rows"][2]["error"].get<std::string>(), "longer than 73 years"))
      << j["rows"][2]["error"];
}

// Item 12: counts that would overflow are an error, not garbage.
TEST_F(ReliabilityCli, WorkloadsTooLargeToCountAreAnError) {
  const auto r = run_zerosim("simulate " + c_ +
                             " --model llama2-7b --gpu h100 --micro-batch 1000000 "
                             "--seq-len 10000000");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "too large to count")) << r.output;
}

// Items 13 and 15: inputs are bounded.
TEST_F(ReliabilityCli, InputsAreRegularFilesOfBoundedSize) {
  auto r = run_zerosim("check /dev/zero");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "/dev/zero: error[file]: is a character device")) << r.output;
  const std::string big = write("big.json", std::string(17 << 20, ' '));
  r = run_zerosim("check " + big);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "may hold at most 16.0 MiB")) << r.output;
  const std::string layers = write("deep_model.json", R"({"model_type": "llama",
      "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 1000000,
      "num_attention_heads": 32, "intermediate_size": 11008})");
  r = run_zerosim("check " + c_ + " --model " + layers);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "num_hidden_layers: 1000000 is not allowed")) << r.output;
}

// Item 14: a trace does not grow with gradient accumulation.
TEST_F(ReliabilityCli, ATraceFoldsRepeatedMicroSteps) {
  const std::string small = dir_ + "/small.json", large = dir_ + "/large.json";
  ASSERT_EQ(run_zerosim("simulate " + c_ + " --model gpt2 --gpu a100-80gb --grad-accum 8 --trace " +
                        small)
                .exit_code,
            0);
  const auto r = run_zerosim("simulate " + c_ +
                             " --model gpt2 --gpu a100-80gb --grad-accum 100000 --trace " + large);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_LT(fs::file_size(large), 2 * fs::file_size(small));
  // The middle micro-steps are one repeated segment (the first and last differ): 8 of them are
  // drawn and the rest folded into one span.
  EXPECT_TRUE(has(read(large), "\"99990 more repetitions of segment 1, each "));
}

// Item 21: with --json, an error is a JSON object on stdout too.
TEST_F(ReliabilityCli, JsonErrorsAreJson) {
  // The message goes to stderr first, then the object to stdout; run_zerosim merges them.
  const auto json_of = [](const std::string& out) {
    return nlohmann::json::parse(out.substr(out.find('{')));
  };
  auto r = run_zerosim("check " + dir_ + "/missing.json --json");
  EXPECT_EQ(r.exit_code, 1);
  auto j = json_of(r.output);
  EXPECT_EQ(j["error"]["code"], "not_found");
  EXPECT_EQ(j["error"]["exit_code"], 1);
  EXPECT_TRUE(has(j["error"]["message"].get<std::string>(), "missing.json"));
  r = run_zerosim("simulate " + c_ + " --model gpt2 --json");  // no cluster
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(
      has(json_of(r.output)["error"]["message"].get<std::string>(), "simulate needs a cluster"));
  r = run_zerosim("check " + c_ + " --no-such-flag --json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json_of(r.output)["error"]["code"], "usage");
}

// Item 22: a preset name cut short suggests the preset it starts.
TEST_F(ReliabilityCli, AnUnknownPresetSuggestsTheOneItStarts) {
  const auto r = run_zerosim("check " + c_ + " --gpu h100-80g");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(has(r.output, "did you mean \"h100-80gb-sxm\"?")) << r.output;
}

// Item 23: a global batch no micro-batch can make is bad input, for tune and sweep.
TEST_F(ReliabilityCli, AnImpossibleGlobalBatchIsBadInput) {
  for (const char* command : {"tune", "sweep"}) {
    const auto r = run_zerosim(std::string(command) + " " + c_ +
                               " --model gpt2 --gpu a100-80gb --global-batch 3 --out " + dir_ +
                               "/out" + (std::string(command) == "sweep" ? " --vary stage=1" : ""));
    EXPECT_EQ(r.exit_code, 1) << command << r.output;
    EXPECT_TRUE(has(r.output, "--global-batch 3: is not a multiple of the cluster's 8 GPUs"))
        << r.output;
    EXPECT_FALSE(fs::exists(dir_ + "/out"));
  }
}

// Items 7, 19, 24 and 25: `run`'s inputs and notes.
TEST_F(ReliabilityCli, RunSaysWhatItDoesAndRefusesWhatItCannot) {
  auto r = run_zerosim("run " + c_ + " --model tiny-gpt --steps 2 --inject-overflow-step 5");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "expected an integer from 0 to 1 (the run has 2 step(s)")) << r.output;
  r = run_zerosim("run " + c_ + " --model tiny-gpt --steps 1 --data " + write("empty.txt", ""));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output,
                  "empty.txt: holds 0 bytes; one sequence of byte tokens needs "
                  "seq_len + 1 = 65"))
      << r.output;
  // bf16 ZeRO-2 with an inf gradient: DeepSpeed skips the step; nothing aborts.
  r = run_zerosim("run " + c_ + " --model tiny-gpt --steps 2 --inject-overflow-step 0");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "grad norm inf  skipped (inf/NaN gradients)")) << r.output;
  const std::string lr = write("lr.json", R"({"train_micro_batch_size_per_gpu": 1,
      "optimizer": {"type": "AdamW", "params": {"lr": 1e30}}, "zero_optimization": {"stage": 0}})");
  r = run_zerosim("run " + lr + " --model tiny-gpt --steps 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_TRUE(j["steps"][2]["non_finite_grads"].get<bool>());
  const std::string offload = write("offload.json", R"({"train_micro_batch_size_per_gpu": 1,
      "bf16": {"enabled": true}, "zero_optimization": {"stage": 3,
      "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}}})");
  r = run_zerosim("run " + offload + " --model tiny-gpt --steps 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output,
                  "note: the config offloads parameters to cpu; the executor runs the Plan's "
                  "parameter copies empty (timed)"))
      << r.output;
}

// Item 27: each step's line reaches a pipe as the step ends.
TEST_F(ReliabilityCli, RunStreamsItsStepLinesThroughAPipe) {
  Child run({"run", c_, "--model", "tiny-gpt", "--steps", "100000"});
  ASSERT_TRUE(run.wait_for("step   0", 60)) << run.out_text << run.err_text;
  run.signal_it(SIGINT);
  const int status = run.wait();
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(has(run.out_text, "zerosim run: tiny-gpt"));
}

}  // namespace
}  // namespace zs
