// speedqa's environment switches (every SPEEDQA_* variable is listed in
// docs/ENVIRONMENT.md). A switch that is set to a value it does not know is
// an error, not a silent fallback.
#pragma once

#include <initializer_list>
#include <string>

namespace speedqa {

// The index of the variable's value among `choices`, `fallback` when it is
// unset or empty; throws Error naming the variable and the choices otherwise.
int env_choice(const char* name, std::initializer_list<const char*> choices, int fallback);

// Switches that are on when set to 1 and off when unset, empty or 0.
bool env_flag(const char* name);

}  // namespace speedqa
