#include "features/adm/kernels.hpp"

namespace speedqa::adm {

const Kernels* kernels_avx2() { return nullptr; }

}  // namespace speedqa::adm
