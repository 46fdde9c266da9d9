// Files read through a mapping, guarded against being cut short: a file that
// gets shorter while its mapping is read faults with SIGBUS (BUS_ADRERR) on
// the pages past its new end. The address ranges of the guarded mappings are
// kept here; a SIGBUS at one of them ends the process with one line on stderr
// ("speedqa: error: an input file got shorter while it was read ...", exit
// status 1). A SIGBUS anywhere else takes the default action.
//
// The handler is installed at the first guard, and only where SIGBUS had its
// default action (a handler installed before, as AddressSanitizer's, is left
// alone). Both the readers' mappings (io) and the CPU engine's input probe
// (cpu) guard theirs.
#pragma once

#include <cstddef>

namespace speedqa {

// Guards [data, data + size) until unguard_mapping(data); a guard that finds
// none of its 256 slots free does nothing (that mapping is not guarded).
void guard_mapping(const void* data, size_t size);
void unguard_mapping(const void* data);

// Whether the handler is installed (a guarded mapping turns SIGBUS into the line).
bool guarding_truncation();

}  // namespace speedqa
