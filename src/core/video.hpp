// The public video types, used throughout the engines.
#pragma once

#include "speedqa/video.hpp"
