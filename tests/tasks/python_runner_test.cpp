#include "tasks/python_runner.hpp"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace adarl {
namespace {

using std::chrono::milliseconds;

/// Processes whose command line holds `marker` (the program text is in python's argv,
/// so this finds a run's processes wherever they were reparented, and only them).
int processes_with(const std::string& marker) {
  int count = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return -1;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/cmdline", std::ios::binary);
    const std::string cmdline{std::istreambuf_iterator<char>(f), {}};
    count += cmdline.find(marker) != std::string::npos;
  }
  closedir(proc);
  return count;
}

/// A marker unique to this test process and call.
std::string marker(const char* what) {
  return std::string("# marker-") + what + "-" + std::to_string(getpid());
}

class PythonRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!python_runner().available()) GTEST_SKIP() << "python3 not found";
  }
  static python_runner with_timeout(milliseconds t) {
    python_config c;
    c.timeout = t;
    return python_runner(c);
  }
};

TEST_F(PythonRunnerTest, HelloWorldExitsWithItsOutputAndReadsStdin) {
  const python_runner r;
  const python_run hello = r.run("print('hello')", "");
  EXPECT_EQ(hello.status, python_status::exited) << hello.err << hello.detail;
  EXPECT_EQ(hello.exit_code, 0);
  EXPECT_EQ(hello.out, "hello\n");
  const python_run echo =
      r.run("import sys\nprint(sys.stdin.read().upper(), end='')", "abc\nd");
  EXPECT_EQ(echo.out, "ABC\nD");
  const python_run big_in =
      r.run("import sys\nprint(len(sys.stdin.read()))", std::string(1 << 20, 'z'));
  EXPECT_EQ(big_in.out, "1048576\n");
}

TEST_F(PythonRunnerTest, ExitCodesSignalsAndErrorsAreReported) {
  const python_runner r;
  const python_run code = r.run("import sys\nsys.exit(3)", "");
  EXPECT_EQ(code.status, python_status::exited);
  EXPECT_EQ(code.exit_code, 3);
  const python_run raised = r.run("raise ValueError('boom')", "");
  EXPECT_EQ(raised.exit_code, 1);
  EXPECT_NE(raised.err.find("ValueError: boom"), std::string::npos) << raised.err;
  const python_run aborted = r.run("import os\nos.abort()", "");
  EXPECT_EQ(aborted.status, python_status::signaled);
  EXPECT_EQ(aborted.term_signal, SIGABRT);
  const python_run nul = r.run(std::string("print(1)\0", 9), "");
  EXPECT_EQ(nul.status, python_status::program_too_large);
}

TEST_F(PythonRunnerTest, InfiniteLoopAndSleepAreKilledAtTheTimeout) {
  const python_runner r = with_timeout(milliseconds(500));
  for (const char* program : {"while True: pass", "import time\ntime.sleep(60)"}) {
    const python_run run = r.run(program, "");
    EXPECT_EQ(run.status, python_status::timeout) << program;
    EXPECT_GE(run.elapsed, milliseconds(490)) << program;
    EXPECT_LT(run.elapsed, milliseconds(1500)) << program;
  }
}

TEST_F(PythonRunnerTest, ForkBombIsContainedAndLeavesNoProcessBehind) {
  const python_runner r = with_timeout(milliseconds(1000));
  const std::string tag = marker("forkbomb");
  const python_run bomb = r.run("import os\nwhile True: os.fork()\n" + tag, "");
  // It ends by itself (fork fails at RLIMIT_NPROC: BlockingIOError) or at the timeout.
  EXPECT_FALSE(bomb.status == python_status::exited && bomb.exit_code == 0)
      << to_string(bomb.status);
  EXPECT_LT(bomb.elapsed, milliseconds(2500));
  // A setsid escape that outlives its parent is gone too (with a PID namespace) or at
  // least killed with its process group.
  const std::string tag2 = marker("escape");
  const python_run escape = r.run(
      "import os, time\nif os.fork() == 0:\n  os.setsid()\n  time.sleep(5)\n" + tag2, "");
  EXPECT_EQ(escape.status, python_status::exited);
  if (escape.isolation.pid_namespace) {
    EXPECT_EQ(processes_with(tag2), 0);
  }
  EXPECT_EQ(processes_with(tag), 0);
  // The test process still forks and the runner still runs.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(7);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(r.run("print(42)", "").out, "42\n");
}

TEST_F(PythonRunnerTest, WithoutNamespacesOrphansAreStillKilled) {
  python_config c;
  c.use_namespaces = false;
  c.processes = 100000;  // not the subject here; other test processes may run as nobody
  const python_runner r(c);
  const std::string tag = marker("orphan");
  const python_run run = r.run(
      "import os, time\nif os.fork() == 0:\n  os.setsid()\n  "
      "time.sleep(5)\nprint('parent')\n" +
          tag,
      "");
  EXPECT_EQ(run.status, python_status::exited) << run.err << run.detail;
  EXPECT_EQ(run.out, "parent\n");
  EXPECT_FALSE(run.isolation.pid_namespace);
  EXPECT_LT(run.elapsed, milliseconds(3000));  // not waiting for the 5 s sleep
  EXPECT_EQ(processes_with(tag), 0);
}

TEST_F(PythonRunnerTest, ConcurrentRunsDoNotStarveEachOtherOfProcesses) {
  const python_runner r = with_timeout(milliseconds(1500));
  const python_isolation iso = r.probe_isolation();
  if (iso.dropped_root && !iso.user_namespace) {
    GTEST_SKIP() << "RLIMIT_NPROC is shared by all runs here: " << iso.describe();
  }
  // One run holds every process it may have, while others start and finish.
  std::thread hog([&] {
    r.run(
        "import os, time\nwhile True:\n  try: os.fork()\n  except OSError: break\n"
        "time.sleep(60)",
        "");
  });
  std::this_thread::sleep_for(milliseconds(300));
  for (int i = 0; i < 3; ++i) {
    const python_run run = r.run("import os\nprint(os.fork() > 0)", "");
    EXPECT_EQ(run.status, python_status::exited) << run.err;
    EXPECT_NE(run.out.find("True"), std::string::npos) << run.err;
  }
  hog.join();
}

TEST_F(PythonRunnerTest, MemoryHogFailsWithoutHarmingTheCaller) {
  const python_runner r;
  const python_run hog = r.run("x = bytearray(1024 ** 3)\nprint('allocated')", "");
  EXPECT_TRUE(hog.status == python_status::memory_limit ||
              hog.status == python_status::signaled)
      << to_string(hog.status) << " " << hog.err;
  EXPECT_EQ(hog.out, "");
  EXPECT_EQ(r.run("print(len(bytearray(10 ** 7)))", "").out, "10000000\n");
}

TEST_F(PythonRunnerTest, OutputFloodIsCappedAndReturnsPromptly) {
  python_config c;
  c.timeout = milliseconds(5000);
  c.output_bytes = 4096;
  const python_runner r(c);
  const python_run flood = r.run("for _ in range(100000): print('x' * 1000)", "");
  EXPECT_EQ(flood.status, python_status::output_limit);
  EXPECT_EQ(flood.out.size(), 4096u);
  EXPECT_LT(flood.elapsed, milliseconds(2000));  // killed at the cap, not the timeout
  const python_run err_flood =
      r.run("import sys\nwhile True: sys.stderr.write('e' * 999)", "");
  EXPECT_EQ(err_flood.status, python_status::output_limit);
  EXPECT_EQ(err_flood.err.size(), 4096u);
  EXPECT_EQ(r.run("print('x' * 4000)", "").status, python_status::exited);
}

TEST_F(PythonRunnerTest, FilesCannotBeWritten) {
  // RLIMIT_FSIZE is 0: creating may work where the uid may, writing a byte does not.
  const std::string path = "/tmp/adarl_sandbox_probe_" + std::to_string(getpid());
  const python_run run = python_runner().run(
      "f = open('" + path + "', 'w')\nf.write('x')\nf.close()\nprint('wrote')", "");
  unlink(path.c_str());
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.exit_code, 0) << to_string(run.status);
}

TEST_F(PythonRunnerTest, IsolationIsReportedAndRootIsDropped) {
  const python_runner r;
  const python_isolation iso = r.probe_isolation();
  EXPECT_FALSE(iso.describe().empty());
  EXPECT_EQ(iso.dropped_root, geteuid() == 0);
  const python_run run = r.run("import os\nprint(os.getuid(), os.getpid())", "");
  EXPECT_EQ(run.isolation.describe(), iso.describe());
  if (iso.dropped_root) {
    EXPECT_EQ(run.out.rfind("65534 ", 0), 0u) << run.out;
  }
  if (iso.pid_namespace) {  // the sandbox's init is 1, the interpreter 2
    EXPECT_EQ(run.out.substr(run.out.find(' ')), " 2\n") << run.out;
  }
  if (iso.net_namespace) {
    const python_run net =
        r.run("import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1)", "");
    EXPECT_NE(net.exit_code, 0);
    EXPECT_NE(net.err.find("OSError"), std::string::npos) << net.err;
  }
}

TEST(PythonRunnerUnavailableTest, MissingInterpreterIsAnOrdinaryResult) {
  python_config c;
  c.interpreter = "/nonexistent/python3";
  const python_runner r(c);
  EXPECT_FALSE(r.available());
  const python_run run = r.run("print(1)", "");
  EXPECT_EQ(run.status, python_status::unavailable);
  EXPECT_FALSE(run.detail.empty());
}

}  // namespace
}  // namespace adarl
