#pragma once
// The cluster parts of `adarl run` (pipelines/cluster.hpp): the remote verifier hub when
// actors.remote_verifiers.bind is set, the remote generator hub when
// actors.remote_generators.bind is (net/verify_hub.hpp, net/generate_hub.hpp).

#include "pipelines/cluster.hpp"

namespace adarl {

/// Cluster parts made from the run's config; with neither endpoint set they add nothing.
cluster_factory config_cluster();

}  // namespace adarl
