#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "core/truncation_guard.hpp"

namespace speedqa::io {

std::shared_ptr<const Mapping> Mapping::map(int fd, size_t size) {
    void* p = nullptr;
    if (size) {
        p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) return nullptr;
    }
    try {
        auto m = std::shared_ptr<const Mapping>(new Mapping(static_cast<const uint8_t*>(p), size, fd));
        guard_mapping(m->data_, size);
        return m;
    } catch (...) {
        if (size) ::munmap(p, size);
        throw;
    }
}

Mapping::~Mapping() {
    if (size_) unguard_mapping(data_);
    if (size_) ::munmap(const_cast<uint8_t*>(data_), size_);
    ::close(fd_);
}

void Mapping::advise_random() const {
    if (size_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_RANDOM);
}

void Mapping::advise_sequential() const {
    if (!size_) return;
    ::madvise(const_cast<uint8_t*>(data_), size_, MADV_SEQUENTIAL);
#ifdef MADV_HUGEPAGE
    // Where transparent huge pages are on for madvised mappings, pages that
    // are not yet cached are read in 2 MiB folios, which the mapping then
    // takes whole (one fault a folio, not one per 16 pages); pages already
    // cached stay as they are. A hint: where the system makes no huge
    // pages of files, nothing changes.
    ::madvise(const_cast<uint8_t*>(data_), size_, MADV_HUGEPAGE);
#endif
}

void Mapping::release(size_t offset, size_t size) const {
    static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    if (offset >= size_ || size == 0) return;
    // whole pages: a page shared with a neighbouring frame is dropped too,
    // which costs that frame no more than reading the page again
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data_ + offset) & ~(page - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(data_ + offset + std::min(size, size_ - offset));
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

bool Mapping::cached(size_t offset, size_t size) const {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    if (offset >= size_ || size == 0) return true;
    const size_t begin = offset / page * page, end = std::min(offset + size, size_);
    unsigned char in[64];
    for (size_t at = begin; at < end;) {
        const size_t pages = std::min<size_t>((end - at + page - 1) / page, sizeof in);
        if (::mincore(const_cast<uint8_t*>(data_ + at), pages * page, in) != 0) return false;
        for (size_t k = 0; k < pages; k++)
            if (!(in[k] & 1)) return false;
        at += pages * page;
    }
    return true;
}

void Mapping::uncache(size_t offset, size_t size) const {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    if (offset >= size_ || size == 0) return;
    // (whole pages: the call leaves out a page the range covers in part)
    const size_t begin = offset / page * page;
    const size_t end = std::min((std::min(offset + size, size_) + page - 1) / page * page, size_);
    ::posix_fadvise(fd_, static_cast<off_t>(begin), static_cast<off_t>(end - begin), POSIX_FADV_DONTNEED);
}

}  // namespace speedqa::io
