// jemalloc's options for adarl's executables (compiled into each one that links
// adarl_allocator; MALLOC_CONF in the environment still overrides them).
//
// Freed pages are kept for reuse instead of being handed back to the kernel over time
// ("decay"): the learner frees and reallocates the same large activation buffers every
// step, and with decay each reuse page-faulted them in again (bench/model_bench 1:
// 1.2 M page faults and a learner step 25% slower than with glibc's malloc; with decay
// off 62 k faults, the step as fast as glibc's, and a lower peak RSS, 401 MB against
// 434 MB). The resident size stays at the process's peak, as with a caching allocator.
extern "C" {
// NOLINTNEXTLINE: the name jemalloc looks up
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
