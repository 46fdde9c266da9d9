#include "io/mapped_file.hpp"

#include <sys/mman.h>

namespace speedqa::io {

std::shared_ptr<const Mapping> Mapping::map(int fd, size_t size) {
    if (size == 0) return std::shared_ptr<const Mapping>(new Mapping(nullptr, 0));
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return nullptr;
    try {
        return std::shared_ptr<const Mapping>(new Mapping(static_cast<const uint8_t*>(p), size));
    } catch (...) {
        ::munmap(p, size);
        throw;
    }
}

Mapping::~Mapping() {
    if (size_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

void Mapping::advise_random() const {
    if (size_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_RANDOM);
}

void Mapping::advise_sequential() const {
    if (size_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_SEQUENTIAL);
}

}  // namespace speedqa::io
