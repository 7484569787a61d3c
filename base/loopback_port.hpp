#pragma once
// A TCP port on 127.0.0.1 that the kernel says is free: for a process adarl starts that
// must listen somewhere (a launched inference server, a replicated learner's store, a
// test's or a benchmark's workers). POSIX only.

namespace adarl {

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back and
/// released; whoever binds it next takes it); 0 when no socket could be bound.
int free_loopback_port();

}  // namespace adarl
