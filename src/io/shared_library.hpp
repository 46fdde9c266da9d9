// The optional shared libraries speedqa opens with dlopen only where a run
// needs them (FFmpeg's for encoded input, cairo for PNG pictures), so that
// other runs start without loading them: opened with RTLD_NOW | RTLD_LOCAL,
// never closed, and each failure said in one line naming the library.
#pragma once

#include <string>

namespace speedqa::io {

// dlopen(soname). nullptr where it fails, with `failure` set to
// "cannot load SONAME (NOTE): <the loader's reason>".
void* open_shared_library(const char* soname, const std::string& note, std::string& failure);

// The function `name` of a library open_shared_library() opened. nullptr
// where it has none, with `failure` set to "SONAME has no NAME".
void* shared_library_function(void* handle, const char* soname, const char* name, std::string& failure);

}  // namespace speedqa::io
