// Hot loops are compiled for several instruction sets and picked at load
// time. The clones differ in speed only: the build never contracts a * b + c
// (-ffp-contract=off) and the loops keep each element's order of operations,
// so every clone returns the same bits.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__)) && \
    !defined(SPEEDQA_NO_CLONES) && !defined(__SANITIZE_ADDRESS__)
#define SPEEDQA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SPEEDQA_CLONES
#endif
