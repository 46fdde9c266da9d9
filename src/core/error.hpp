#pragma once

#include "speedqa/error.hpp"
