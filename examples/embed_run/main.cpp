// embed_run: `adarl run` as a library call (experiments/run_job.hpp). A 3-step run of a
// pipeline config, then the same run resumed to 6 steps, both through run_job, with the
// job's lines kept in a string and a stop flag of the program's own (no signal handlers
// are installed then).
//   embed_run CONFIG OUT
#include <atomic>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "experiments/run_job.hpp"

namespace {

/// Runs `req` into `r`; false, with the reason on stderr, when it did not finish.
bool finished(const adarl::run_request& req, const adarl::run_job_hooks& hooks,
              adarl::run_job_result& r) {
  r = adarl::run_job(req, hooks);
  if (r.status == adarl::run_status::finished) return true;
  std::cerr << "embed_run: the run did not finish: " << r.error << "\n";
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: embed_run CONFIG OUT\n";
    return 2;
  }
  const std::string config = argv[1], out = argv[2];
  std::atomic<bool> stop{false};  // a host would set it to stop the run with a checkpoint
  std::ostringstream said;        // what `adarl run` prints on stdout
  adarl::run_job_hooks hooks;
  hooks.out = &said;
  hooks.stop = &stop;

  adarl::run_job_result first;
  if (!finished({config, {"out=" + out, "tracker.steps=3"}, "", false}, hooks, first))
    return 1;
  std::cout << "embed_run: trained to version " << first.version << " in " << first.out
            << "; checkpoint " << first.checkpoint << "\n";

  // The same run, resumed from its directory to 6 steps (tracker.steps is not part of
  // what the checkpoint's state means, so the resume check lets it through).
  adarl::run_job_result more;
  if (!finished({config, {"tracker.steps=6"}, first.out, false}, hooks, more)) return 1;
  std::cout << "embed_run: resumed to version " << more.version << " in " << more.out
            << "; checkpoint " << more.checkpoint << "\n";

  std::ifstream metrics(more.out + "/metrics.jsonl");
  int steps = 0;
  for (std::string line; std::getline(metrics, line);) ++steps;
  const bool resumed = said.str().find("run: resuming from " + first.checkpoint + " into " +
                                       first.out + "\n") != std::string::npos;
  std::cout << "embed_run: metrics.jsonl holds " << steps << " steps; the job said it "
            << (resumed ? "resumed from " + first.checkpoint : std::string("did not resume"))
            << "\n";
  return steps == 6 && resumed ? 0 : 1;
}
