// A short `adarl run` whose generator is a real llama-server (configs/server-llama.yaml,
// docs/guides/engines.md): adarl starts the server with the base policy as GGUF, restarts
// it with each version the learner makes, and every step's samples agree with the
// learner's log-probs (metrics.jsonl logprob_gap). Needs scripts/llama_server.sh's
// server (scripts/test.sh installs it; .ci/run fails the test without it). A run whose
// server does not answer is refused before it starts, naming the URL.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engines/server/server_process.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_job.hpp"
#include "tests/formats/tiny_hf.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

/// A fresh scratch directory named by `tag` with a tiny random Qwen2 checkpoint in
/// DIR/hf (the server kind's learner and tokenizer).
std::string scratch_with_tiny_hf(const std::string& tag) {
  register_torch_engines();
  const std::string dir =
      (fs::temp_directory_path() / (tag + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  test::tiny_hf_spec spec;
  spec.real_tokenizer = false;
  spec.hidden = 32;
  spec.intermediate = 64;
  test::write_tiny_hf(dir + "/hf", spec);
  return dir;
}

/// A run job's hooks writing to `out` and `err`, never stopped.
run_job_hooks hooks_of(std::ostringstream& out, std::ostringstream& err) {
  static std::atomic<bool> never{false};
  run_job_hooks hooks;
  hooks.out = &out;
  hooks.err = &err;
  hooks.stop = &never;
  return hooks;
}

TEST(ServerRunTest, ARunOnLlamaServerTrainsOnEveryVersionItServes) {
  const std::string server = installed_llama_server();
  if (!fs::exists(server)) {
    const char* required = std::getenv("ADARL_REQUIRE_LLAMA_SERVER");
    if (required && *required == '1')
      FAIL() << "no " << server << ", and ADARL_REQUIRE_LLAMA_SERVER=1 (.ci/run)";
    GTEST_SKIP() << "no llama-server: bash scripts/llama_server.sh install";
  }
  const std::string dir = scratch_with_tiny_hf("adarl_server_run");
  const int port = free_loopback_port();
  std::ostringstream out, err;
  const run_job_hooks hooks = hooks_of(out, err);
  run_request req{
      std::string(ADARL_SOURCE_DIR) + "/configs/server-llama.yaml",
      {"out=" + dir + "/run", "model.path=" + dir + "/hf",
       "server.url=http://127.0.0.1:" + std::to_string(port),
       // the config's launch with the binary checked above
       "server.launch=\"" + server +
           " -m {model} --alias {version} --host 127.0.0.1 --port {port} -c 1024"
           " -np 4 -t 1 -fa off -ctk f32 -ctv f32 --no-webui\"",
       "tracker.steps=2", "tasks.held_out=2", "sampling.max_new_tokens=8",
       "progress=false", "stall_seconds=120"},
      "",
      false};
  const auto r = run_job(req, hooks);
  ASSERT_EQ(r.status, run_status::finished) << err.str() << out.str();
  EXPECT_EQ(r.version, 2u);
  // One line per step; where the step had fresh samples (a step drawn one version behind,
  // max_lag 1, has none), their gap to the learner is rounding.
  std::ifstream metrics(dir + "/run/metrics.jsonl");
  size_t steps = 0, measured = 0;
  for (std::string line; std::getline(metrics, line); ++steps) {
    const auto j = nlohmann::json::parse(line);
    measured += j["logprob_gap_tokens"].get<uint64_t>();
    EXPECT_LT(j["logprob_gap"].get<double>(), 1e-3) << line;
  }
  EXPECT_EQ(steps, 2u);
  EXPECT_GT(measured, 0u);
  // The server was started with each version's GGUF in turn (the newest kept).
  EXPECT_TRUE(fs::exists(dir + "/run/server-weights/v2/model.gguf"));
  std::ifstream log(dir + "/run/server.log");
  std::stringstream text;
  text << log.rdbuf();
  for (const char* file : {"/v0/model.gguf", "/v1/model.gguf", "/v2/model.gguf"})
    EXPECT_NE(text.str().find("loading model '" + dir + "/run/server-weights" + file),
              std::string::npos)
        << file;
  fs::remove_all(dir);
}

TEST(ServerRunTest, ARunOnAServerThatDoesNotAnswerIsRefusedNamingItsUrl) {
  // No llama-server needed: nothing listens where the config points.
  const std::string dir = scratch_with_tiny_hf("adarl_server_refused");
  const std::string url = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  std::ostringstream out, err;
  const run_job_hooks hooks = hooks_of(out, err);
  run_request req{std::string(ADARL_SOURCE_DIR) + "/configs/server-llama.yaml",
                  {"out=" + dir + "/run", "model.path=" + dir + "/hf", "server.url=" + url,
                   "server.dialect=sglang", "server.launch=", "progress=false"},
                  "",
                  false};
  const auto r = run_job(req, hooks);
  EXPECT_EQ(r.status, run_status::refused) << err.str();  // exit 2
  EXPECT_NE(err.str().find(url + ": no reply from"), std::string::npos)
      << err.str();
  EXPECT_FALSE(fs::exists(dir + "/run/metrics.jsonl"));  // nothing started
  fs::remove_all(dir);
}

}  // namespace
}  // namespace adarl
