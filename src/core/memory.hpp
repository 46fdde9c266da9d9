// How much memory a run may take: what the machine (or the container) has
// left, so that a declared frame size that cannot fit fails early with one
// line instead of meeting the out-of-memory killer, and so that threads and
// frames in flight are bounded by it.
#pragma once

#include <cstddef>
#include <string>

namespace speedqa {

struct AvailableMemory {
    size_t bytes;
    const char* bound;  // which limit gave it, in words
};

// Bytes this process may still take: the least of the system's available
// memory (MemAvailable), what its cgroup (v2 memory.max, v1
// memory.limit_in_bytes, every level up) allows beyond what it uses
// (reclaimable page cache aside), the address-space limit (RLIMIT_AS), and
// SPEEDQA_MEMORY_LIMIT when set ("512M", "8G", bytes). SIZE_MAX where none
// is known. Throws Error on a malformed SPEEDQA_MEMORY_LIMIT.
AvailableMemory available_memory();

// "1.5 GB", "350 MB", "12 KB", "80 bytes": sizes in messages.
std::string format_bytes(size_t bytes);

}  // namespace speedqa
