// A feature's part for a device engine (CUDA today; Vulkan later).
//
// The CPU engine runs a feature through Feature::make_cpu_kernel. A device
// engine needs more of a feature than core can describe without the
// device's headers (buffers, kernels, graphs): each feature module makes, in
// its own folder (src/features/<name>/<engine>/), an object of the engine's
// own interface (cuda::DeviceFeature, src/cuda/device_feature.cuh), which
// derives from EnginePart. The feature registry (src/features/registry.*)
// lists every module's makers; the engine registry (src/api/engines.*) asks
// it for the parts of the features of a run.
#pragma once

#include <memory>

#include "core/feature.hpp"

namespace speedqa {

class EnginePart {
public:
    virtual ~EnginePart() = default;
};

// What a part is made for, beside the feature itself.
struct PartContext {
    // The libvmaf dispatch whose values are reproduced (ADM and SpEED's
    // values depend on it; the part gives the selected dispatch's values).
    Dispatch dispatch = Dispatch::scalar;
};

// Builds a feature's part; called by the engine with its device selected, in
// the thread that then uses the part. Throws Error where the part cannot be
// made (the device's memory, say).
using PartMaker = std::unique_ptr<EnginePart> (*)(const Feature& feature, const PartContext& context);

}  // namespace speedqa
