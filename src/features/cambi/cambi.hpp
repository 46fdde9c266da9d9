// libvmaf's CAMBI banding feature (feature/cambi.c of libvmaf master), exact:
// `--feature cambi` with libvmaf's options, its outputs `cambi` (and with
// full_ref=true `cambi_source` and `cambi_full_reference`) under libvmaf's
// names.
#pragma once

#include "core/feature.hpp"

namespace speedqa {

const FeatureDef& cambi_feature();

}  // namespace speedqa
