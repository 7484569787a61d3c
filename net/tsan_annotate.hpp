#pragma once
// Hand-offs between threads inside libraries ThreadSanitizer cannot see into (libzmq's
// lock-free queues to its I/O thread): tsan_release(p) before handing p over and
// tsan_acquire(p) where the other thread takes it make what the first thread did happen
// before what the second does, as libzmq guarantees. Without -fsanitize=thread both
// compile to nothing. (CAF's hand-offs: tests/sanitizers/tsan_caf_sync.cpp.)

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace adarl {

inline void tsan_release([[maybe_unused]] void* p) {
#if defined(__SANITIZE_THREAD__)
  __tsan_release(p);
#endif
}

inline void tsan_acquire([[maybe_unused]] void* p) {
#if defined(__SANITIZE_THREAD__)
  __tsan_acquire(p);
#endif
}

}  // namespace adarl
