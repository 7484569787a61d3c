// What a sandboxed program sees of the filesystem: with a private root, nothing of the
// host or of the run (python_isolation::private_root).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tasks/python_runner.hpp"

namespace adarl {
namespace {

/// A program printing, for each path, "path -> ok N" (N bytes read, or entries listed)
/// or "path -> ErrorName errno".
std::string probe_program(const std::vector<std::string>& paths) {
  std::string list;
  for (const std::string& p : paths) list += "'" + p + "', ";
  return "import os\n"
         "for p in [" +
         list +
         "]:\n"
         "  try:\n"
         "    n = len(os.listdir(p)) if os.path.isdir(p) else len(open(p, 'rb').read())\n"
         "    print(p, '-> ok', n)\n"
         "  except OSError as e:\n"
         "    print(p, '->', type(e).__name__, e.errno)\n";
}

/// The lines of `out` that say a path was read.
std::vector<std::string> reads_in(const std::string& out) {
  std::vector<std::string> reads;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("-> ok") != std::string::npos) reads.push_back(line);
  }
  return reads;
}

std::set<std::string> host_listing(const char* dir) {
  std::set<std::string> names;
  if (DIR* d = opendir(dir)) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.insert(name);
    }
    closedir(d);
  }
  return names;
}

/// The names a python list printed as "['a', 'b']" holds.
std::set<std::string> names_in(const std::string& printed) {
  std::set<std::string> names;
  for (size_t i = printed.find('\''); i != std::string::npos;) {
    const size_t end = printed.find('\'', i + 1);
    if (end == std::string::npos) break;
    names.insert(printed.substr(i + 1, end - i - 1));
    i = printed.find('\'', end + 1);
  }
  return names;
}

python_config fs_config() {
  python_config c;
  c.timeout = std::chrono::milliseconds(3000);  // ample under a loaded ctest -j
  c.file_bytes = 1 << 20;                       // so that /tmp may be written
  return c;
}

class PythonSandboxFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!runner_.available()) GTEST_SKIP() << "python3 not found";
    const python_isolation iso = runner_.probe_isolation();
    if (!iso.private_root) GTEST_SKIP() << "no private root here: " << iso.describe();
    own_proc_ = iso.own_proc;
  }
  python_run run(const std::string& program, const std::string& input = "") {
    python_run r = runner_.run(program, input);
    EXPECT_EQ(r.status, python_status::exited) << r.err << r.detail;
    EXPECT_TRUE(r.isolation.private_root) << r.isolation.describe();
    return r;
  }
  const python_runner runner_{fs_config()};
  bool own_proc_ = false;
};

TEST_F(PythonSandboxFsTest, HostAndRunFilesAreNotVisible) {
  const std::vector<std::string> paths = {
      "/etc/passwd",     ADARL_TEST_DATA, ADARL_TEST_DATA "/tasks_bad_fields.jsonl",
      __FILE__,          "/root",         "/home",
      "/work",           "/var",          "/proc/1/environ",
      "/proc/1/cmdline", "/sys/kernel",   "/etc/hostname"};
  // The test itself reads them (the check below could not fail otherwise).
  int host_readable = 0;
  for (const std::string& p : paths) host_readable += ::access(p.c_str(), R_OK) == 0;
  ASSERT_GE(host_readable, 5);
  const python_run r = run(probe_program(paths));
  EXPECT_EQ(reads_in(r.out), std::vector<std::string>{}) << r.out;
  EXPECT_NE(r.out.find("/etc/passwd -> FileNotFoundError"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::string(__FILE__) + " -> FileNotFoundError"),
            std::string::npos)
      << r.out;
}

TEST_F(PythonSandboxFsTest, RootHoldsOnlyWhatPythonNeeds) {
  const python_run r = run(
      "import os\nprint(sorted(os.listdir('/')))\nprint(sorted(os.listdir('/etc')))\n"
      "print(sorted(os.listdir('/dev')))\nimport json, re, decimal, fractions, heapq\n"
      "print(json.dumps({'d': str(decimal.Decimal(1) / 8)}))");
  std::istringstream lines(r.out);
  std::string root, etc, dev, last;
  std::getline(lines, root);
  std::getline(lines, etc);
  std::getline(lines, dev);
  std::getline(lines, last);
  const std::set<std::string> allowed = {"bin", "sbin", "lib", "lib32", "lib64", "libx32",
                                         "usr", "etc",  "dev", "proc",  "tmp"};
  const std::set<std::string> seen = names_in(root);
  for (const std::string& name : seen) EXPECT_TRUE(allowed.count(name)) << name;
  for (const char* name : {"usr", "tmp", "dev", "etc"})
    EXPECT_TRUE(seen.count(name)) << root;
  // Something the host has is missing (/root, /home, /var... on any system).
  size_t hidden = 0;
  for (const std::string& name : host_listing("/")) hidden += seen.count(name) == 0;
  EXPECT_GT(hidden, 0u) << root;
  for (const std::string& name : names_in(etc)) {
    EXPECT_TRUE(name == "ld.so.cache" || name == "localtime") << etc;
  }
  EXPECT_TRUE(names_in(dev).count("urandom")) << dev;
  EXPECT_FALSE(names_in(dev).count("sda")) << dev;
  EXPECT_EQ(last, R"({"d": "0.125"})") << r.err;
}

TEST_F(PythonSandboxFsTest, TmpIsEmptyWritableAndPrivateToTheRun) {
  const std::string host_file = "/tmp/adarl_fs_test_host_" + std::to_string(getpid());
  std::ofstream(host_file) << "host";
  const std::string sandbox_file = "/tmp/adarl_fs_test_run_" + std::to_string(getpid());
  const std::string program =
      "import os\nprint(os.listdir('/tmp'))\n"
      "with open('" +
      sandbox_file +
      "', 'w') as f: f.write('secret')\n"
      "print(open('" +
      sandbox_file + "').read())\nprint(os.listdir('/tmp'))";
  const python_run first = run(program);
  const python_run second = run(program);
  const bool host_sees = ::access(sandbox_file.c_str(), F_OK) == 0;
  ::unlink(host_file.c_str());
  ::unlink(sandbox_file.c_str());
  const std::string name = sandbox_file.substr(5);
  const std::string expected = "[]\nsecret\n['" + name + "']\n";
  EXPECT_EQ(first.out, expected) << first.err;
  EXPECT_EQ(second.out, expected) << second.err;  // nothing left by the first run
  EXPECT_FALSE(host_sees);
}

TEST_F(PythonSandboxFsTest, UsrAndTheRootAreReadOnly) {
  // Creating a file says EROFS whoever asks (an existing one may say EACCES first).
  const python_run r =
      run("import errno, os\n"
          "for p in ['/usr/adarl_probe', '/adarl_probe', '/etc/adarl_probe', '/dev/x']:\n"
          "  try:\n"
          "    open(p, 'a').close()\n"
          "    print(p, 'written')\n"
          "  except OSError as e:\n"
          "    print(p, errno.errorcode[e.errno])\n"
          "try:\n"
          "  os.mkdir('/usr/lib/adarl_probe')\n"
          "except OSError as e:\n"
          "  print(errno.errorcode[e.errno])\n");
  EXPECT_EQ(r.out,
            "/usr/adarl_probe EROFS\n/adarl_probe EROFS\n/etc/adarl_probe EROFS\n"
            "/dev/x EROFS\nEROFS\n")
      << r.err;
  struct stat st {};
  EXPECT_NE(::stat("/usr/adarl_probe", &st), 0);
}

TEST_F(PythonSandboxFsTest, ProcShowsOnlyTheRun) {
  if (!own_proc_) GTEST_SKIP() << "no /proc of the run's PID namespace here";
  // The init (PID 1, a copy of the caller) is hidden; the program sees itself.
  const python_run r =
      run("import os\npids = sorted(int(n) for n in os.listdir('/proc') if n.isdigit())\n"
          "print(pids == [os.getpid()], os.path.exists('/proc/1'))\n"
          "print('Pid:\\t%d' % os.getpid() in open('/proc/self/status').read())");
  EXPECT_EQ(r.out, "True False\nTrue\n") << r.err;
}

TEST(PythonSandboxFsFallbackTest, WithoutPrivateRootTheHostIsVisibleAndSaidSo) {
  python_config c = fs_config();
  c.private_root = false;
  const python_runner r(c);
  if (!r.available()) GTEST_SKIP() << "python3 not found";
  const python_run run = r.run(probe_program({"/usr/bin"}), "");
  EXPECT_EQ(run.status, python_status::exited) << run.err << run.detail;
  EXPECT_FALSE(run.isolation.private_root);
  EXPECT_EQ(run.isolation.root_problem, "private_root disabled");
  EXPECT_NE(
      run.isolation.describe().find("host filesystem visible (private_root disabled)"),
      std::string::npos)
      << run.isolation.describe();
  EXPECT_EQ(reads_in(run.out).size(), 1u) << run.out;
}

}  // namespace
}  // namespace adarl
