// What the fuzz targets share: the input as a file descriptor, and a memory
// limit that makes a declared frame size too large for the fuzzer's own
// limits a refusal (speedqa::Error) rather than a finding.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace speedqa::fuzz {

// The fuzzer's -rss_limit_mb is 2048: frames and scratch stay well under it.
inline void limit_memory() { ::setenv("SPEEDQA_MEMORY_LIMIT", "256M", 1); }

// A memory file holding `data`, read from its start; -1 if none could be made.
inline int memory_file(const uint8_t* data, size_t size) {
    const int fd = ::memfd_create("fuzz", 0);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n <= 0) {
            ::close(fd);
            return -1;
        }
        done += static_cast<size_t>(n);
    }
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

}  // namespace speedqa::fuzz
