// A whole regular file mapped read-only into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace speedqa::io {

class Mapping {
public:
    // Maps the `size` bytes of `fd` (MAP_PRIVATE, read-only) and takes the
    // descriptor, which stays open for pread until the Mapping goes; nullptr
    // when the system will not map it (the caller keeps fd and reads it as a
    // stream). An empty file gives an empty Mapping. The mapping is guarded
    // against the file getting shorter while it is read
    // (core/truncation_guard.hpp) until the Mapping goes.
    static std::shared_ptr<const Mapping> map(int fd, size_t size);
    ~Mapping();
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;

    const uint8_t* data() const { return data_; }
    int fd() const { return fd_; }
    size_t size() const { return size_; }
    // Access pattern hints: random while frame headers are indexed (no
    // read-ahead of the pictures in between), sequential for the frames,
    // which also marks the mapping for huge pages (pages not yet cached are
    // read ahead in 2 MiB folios and mapped whole; see mapped_file.cpp).
    void advise_random() const;
    void advise_sequential() const;
    // Drops the pages of bytes [offset, offset + size) from the process's
    // resident memory. The mapping is read-only, so nothing is lost: a
    // later access reads the file again (from the page cache). Thread-safe.
    void release(size_t offset, size_t size) const;
    // Whether the page cache holds the page of byte `offset` (mincore).
    // Where the system tells only of the pages this process maps (a file
    // the user neither owns nor may write), a page not mapped here reads as
    // not cached.
    bool cached(size_t offset) const;
    // Drops the file's pages of bytes [offset, offset + size), whole pages,
    // from the page cache where no process maps them (posix_fadvise
    // DONTNEED; the file is only read, so its pages are clean). A folio that
    // reaches outside the range stays. A hint, as release().
    void uncache(size_t offset, size_t size) const;
    // The system's page size, the unit of the calls above.
    static size_t page_size();

private:
    Mapping(const uint8_t* data, size_t size, int fd) : data_(data), size_(size), fd_(fd) {}
    const uint8_t* data_;
    size_t size_;
    int fd_;
};

}  // namespace speedqa::io
