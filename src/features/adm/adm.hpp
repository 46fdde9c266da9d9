// libvmaf's integer ADM (feature "adm"): the detail loss measure (adm2),
// the additive impairment measure (aim), their blend (adm3) and the per
// scale ratios, exact for every libvmaf dispatch.
#pragma once

#include "core/feature.hpp"

namespace speedqa {

const FeatureDef& adm_feature();

}  // namespace speedqa
