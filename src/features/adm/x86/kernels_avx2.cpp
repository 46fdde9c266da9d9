#include "features/adm/kernels.hpp"

namespace speedqa::adm {

const RowKernels* row_kernels_avx2() { return nullptr; }

}  // namespace speedqa::adm
