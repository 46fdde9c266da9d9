#include <gtest/gtest.h>

#include "core/error.hpp"
#include "features/adm/adm.hpp"
#include "support/run_feature.hpp"

namespace speedqa::testing {
namespace {

TEST(AdmOptions, Placeholder) { SUCCEED(); }

}  // namespace
}  // namespace speedqa::testing
