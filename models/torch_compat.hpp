#pragma once
// Where LibTorch's C++ API differs between 1.13 (Debian 12) and 2.x (Debian 13's 2.6,
// PyTorch's own builds): every LibTorch version check of adarl is in this header and
// models/torch_compat.cpp. scripts/trixie-check.sh builds and tests the tree against 2.6
// (docs/development.md "LibTorch 2.x (Debian 13)"). Light on purpose: <torch/version.h>
// and forward declarations, no <torch/torch.h>.

#include <torch/version.h>

#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

/// True when the LibTorch compiled against is MAJOR.MINOR or newer.
#define ADARL_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||        \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace c10 {
struct TensorImpl;
}  // namespace c10
namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d

namespace adarl::torch_compat {

/// What c10d::ProcessGroupGloo and ProcessGroupNCCL derive from, with the collectives
/// adarl calls (allreduce, broadcast): 1.13's ProcessGroup; 2.x split that into a
/// front-end ProcessGroup and per-device Backends, which the process groups now are.
#if ADARL_TORCH_AT_LEAST(2, 0)
using process_group = c10d::Backend;
#else
using process_group = c10d::ProcessGroup;
#endif

/// The key of a torch::optim optimizer's state map (Optimizer::state()): 1.13 keys it by
/// the parameter's TensorImpl address printed as a string (c10::guts::to_string, which
/// 2.x no longer has), 2.x by the address itself. Read off the map's own type, so no
/// version boundary is guessed.
template <class Optimizer>
using optimizer_state_key =
    std::decay_t<decltype(std::declval<Optimizer&>().state().begin()->first)>;

/// A parameter's key in that map, from its TensorImpl (Tensor::unsafeGetTensorImpl()).
template <class Key>
Key optimizer_state_key_of(c10::TensorImpl* impl) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream out;  // what c10::guts::to_string wrote
    out << static_cast<const void*>(impl);
    return out.str();
  } else {
    return impl;
  }
}

/// Makes a c10d::TCPStoreOptions open the classic socket TCPStore, the one of 1.13: 2.4
/// made the libuv backend the default (TCPStoreOptions::useLibUV), and a LibTorch built
/// without libuv (Debian 13's 2.6) then refuses every store, server and client ("use_libuv
/// was requested but PyTorch was build without libuv support"). A template, so that the
/// field is looked for only in the options of the LibTorch at hand.
template <class TCPStoreOptions>
void use_classic_tcp_store(TCPStoreOptions& options) {
  if constexpr (requires { options.useLibUV = false; }) options.useLibUV = false;
}

/// Turns bfloat16 autocast of CUDA operations on this thread on, or off (then clearing
/// its cast cache): at::autocast::set_enabled / set_autocast_gpu_dtype before 2.4,
/// set_autocast_enabled / set_autocast_dtype with a device type from 2.4 on.
void set_cuda_autocast_bf16(bool enabled);

}  // namespace adarl::torch_compat
