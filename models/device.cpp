#include "models/device.hpp"

#include "base/device_name.hpp"

namespace adarl {

result<torch::Device> parse_device(const std::string& name) {
  if (name == "cpu") return torch::Device(torch::kCPU);
  const auto parsed = parse_device_name(name);
  if (!parsed)
    return error{"device \"" + name + "\": expected \"cpu\" or \"cuda:N\" (e.g. cuda:0)"};
  const int index = parsed->index;
  if (!torch::cuda::is_available())
    return error{"device \"" + name +
                 "\": this LibTorch build has no CUDA (Debian's libtorch is CPU-only); "
                 "use device: cpu, or configure CMake with -DCMAKE_PREFIX_PATH=<a CUDA LibTorch>"};
  if (index >= static_cast<int>(torch::cuda::device_count()))
    return error{"device \"" + name + "\": only " +
                 std::to_string(torch::cuda::device_count()) + " CUDA device(s) visible"};
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

}  // namespace adarl
