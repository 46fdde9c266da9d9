// IEEE 754 binary64 arithmetic in integer operations only: the double
// results of +, -, *, /, sqrt, fma, the conversions and the comparisons,
// bit for bit as an x86 CPU's SSE2 arithmetic gives them (round to nearest,
// ties to even; subnormals kept; signed zeros and infinities as IEEE says),
// for devices whose double arithmetic is slow or absent (consumer GPUs run
// fp64 at 1/32 or 1/64 of fp32; a Vulkan device need not have it at all).
//
// Exact by construction: every result is the exact value rounded once,
// found with integer arithmetic: a mantissa held with 10 guard bits and a
// sticky bit for +, -, the 106-bit product for *, the exact product for
// fma, restoring division and a digit-by-digit square root. No
// floating-point instruction is used, so neither the compiler (contraction)
// nor the hardware (flushed subnormals, fast approximations) can change a
// bit. NaN results follow SSE: an operation that makes a NaN gives the
// default NaN 0xfff8000000000000; a NaN operand is returned quieted (the
// first one where both are).
//
// Soft64 holds the bits; the functions mirror C's operators and
// conversions. Host and device (SPEEDQA_HD), 64- and 128-bit integers.
#pragma once

#include "exact/hd.hpp"

namespace speedqa::exact {

struct Soft64 {
    uint64_t bits = 0;
};

namespace soft64_detail {

inline constexpr uint64_t kSign = uint64_t{1} << 63;
inline constexpr uint64_t kExpMask = uint64_t{0x7ff} << 52;
inline constexpr uint64_t kFracMask = (uint64_t{1} << 52) - 1;
inline constexpr uint64_t kHidden = uint64_t{1} << 52;
inline constexpr uint64_t kDefaultNaN = 0xfff8000000000000ull;
using u128 = unsigned __int128;

SPEEDQA_HD bool is_nan(uint64_t a) { return (a & ~kSign) > kExpMask; }
SPEEDQA_HD bool is_inf(uint64_t a) { return (a & ~kSign) == kExpMask; }
SPEEDQA_HD bool is_zero(uint64_t a) { return (a & ~kSign) == 0; }
SPEEDQA_HD uint64_t quiet(uint64_t a) { return a | (uint64_t{1} << 51); }

SPEEDQA_HD int clz64(uint64_t v) {
#if defined(__CUDA_ARCH__)
    return __clzll(static_cast<long long>(v));
#else
    return v == 0 ? 64 : __builtin_clzll(v);
#endif
}

SPEEDQA_HD int clz128(u128 v) {
    const uint64_t hi = static_cast<uint64_t>(v >> 64);
    return hi != 0 ? clz64(hi) : 64 + clz64(static_cast<uint64_t>(v));
}

// v >> n, every bit shifted out ORed into bit 0 (sticky); n >= 0.
SPEEDQA_HD uint64_t shift_right_sticky(uint64_t v, int n) {
    if (n <= 0) return v;
    if (n >= 64) return v != 0 ? 1 : 0;
    return (v >> n) | ((v & ((uint64_t{1} << n) - 1)) != 0 ? 1 : 0);
}

SPEEDQA_HD u128 shift_right_sticky128(u128 v, int n) {
    if (n <= 0) return v;
    if (n >= 128) return v != 0 ? 1 : 0;
    return (v >> n) | ((v & ((u128{1} << n) - 1)) != 0 ? 1 : 0);
}

// The double of sign `sign` (the bit) whose value is m * 2^(e - 1085), m
// in [2^62, 2^63) (the 53 mantissa bits at 62..10, rounding bits 9..0, the
// lowest of them sticky: nonzero where anything was shifted out below),
// rounded to nearest even; overflow to infinity, underflow to subnormals
// and zero. e is then the result's biased exponent before rounding.
SPEEDQA_HD uint64_t round_pack(uint64_t sign, int e, uint64_t m) {
    if (e <= 0) {
        m = shift_right_sticky(m, 1 - e);  // the subnormals' exponent is that of 1
        e = 0;
    }
    const uint64_t rest = m & 0x3ff;
    uint64_t mant = m >> 10;
    if (rest > 0x200 || (rest == 0x200 && (mant & 1))) {
        mant++;
        if (e == 0 && mant == kHidden) e = 1;  // rounded up to the smallest normal
        if (mant == (kHidden << 1)) {          // past the top: 2.0
            mant >>= 1;
            e++;
        }
    }
    if (e >= 0x7ff) return sign | kExpMask;
    if (e == 0) return sign | mant;
    return sign | (static_cast<uint64_t>(e) << 52) | (mant & kFracMask);
}

// A finite nonzero double as mant * 2^(exp - 1075), mant in [2^52, 2^53)
// (subnormals normalized: exp <= 0).
SPEEDQA_HD void unpack(uint64_t a, uint64_t& mant, int& exp) {
    exp = static_cast<int>((a >> 52) & 0x7ff);
    mant = a & kFracMask;
    if (exp == 0) {
        const int shift = clz64(mant) - 11;
        mant <<= shift;
        exp = 1 - shift;
    } else {
        mant |= kHidden;
    }
}

SPEEDQA_HD uint64_t add(uint64_t a, uint64_t b) {
    if (is_nan(a)) return quiet(a);
    if (is_nan(b)) return quiet(b);
    if (is_inf(a)) return is_inf(b) && ((a ^ b) & kSign) ? kDefaultNaN : a;
    if (is_inf(b)) return b;
    if (is_zero(a) && is_zero(b)) return a & b & kSign;  // -0 only for -0 + -0
    if (is_zero(a)) return b;
    if (is_zero(b)) return a;
    uint64_t ma, mb;
    int ea, eb;
    unpack(a, ma, ea);
    unpack(b, mb, eb);
    uint64_t sa = a & kSign;
    const uint64_t sb = b & kSign;
    if (eb > ea || (eb == ea && mb > ma)) {  // the larger magnitude first
        const uint64_t t = ma;
        ma = mb;
        mb = t;
        const int te = ea;
        ea = eb;
        eb = te;
        sa = sb;
    }
    ma <<= 10;
    mb = shift_right_sticky(mb << 10, ea - eb);
    uint64_t m;
    if (((a ^ b) & kSign) == 0) {
        m = ma + mb;
        if (m >> 63) {
            m = shift_right_sticky(m, 1);
            ea++;
        }
    } else {
        m = ma - mb;
        if (m == 0) return 0;  // exact cancellation: +0
        const int shift = clz64(m) - 1;
        m <<= shift;
        ea -= shift;
    }
    return round_pack(sa, ea, m);
}

SPEEDQA_HD uint64_t mul(uint64_t a, uint64_t b) {
    const uint64_t sign = (a ^ b) & kSign;
    if (is_nan(a)) return quiet(a);
    if (is_nan(b)) return quiet(b);
    if (is_inf(a) || is_inf(b)) return is_zero(a) || is_zero(b) ? kDefaultNaN : sign | kExpMask;
    if (is_zero(a) || is_zero(b)) return sign;
    uint64_t ma, mb;
    int ea, eb;
    unpack(a, ma, ea);
    unpack(b, mb, eb);
    const u128 p = static_cast<u128>(ma) * mb;  // in [2^104, 2^106)
    const int lead = 127 - clz128(p);
    const uint64_t m = static_cast<uint64_t>(shift_right_sticky128(p, lead - 62));
    return round_pack(sign, ea + eb + lead - 1127, m);
}

SPEEDQA_HD uint64_t div(uint64_t a, uint64_t b) {
    const uint64_t sign = (a ^ b) & kSign;
    if (is_nan(a)) return quiet(a);
    if (is_nan(b)) return quiet(b);
    if (is_inf(a)) return is_inf(b) ? kDefaultNaN : sign | kExpMask;
    if (is_inf(b)) return sign;
    if (is_zero(b)) return is_zero(a) ? kDefaultNaN : sign | kExpMask;
    if (is_zero(a)) return sign;
    uint64_t ma, mb;
    int ea, eb;
    unpack(a, ma, ea);
    unpack(b, mb, eb);
    // q = floor(ma * 2^62 / mb), restoring division bit by bit
    uint64_t r = ma, q = 0;
    for (int i = 0; i < 63; i++) {
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1;
        }
        r <<= 1;
    }
    uint64_t m = q | (r != 0 ? 1 : 0);
    int e = ea - eb + 1023;
    if (!(m >> 62)) {  // the ratio below 1
        m <<= 1;
        e--;
    }
    return round_pack(sign, e, m);
}

SPEEDQA_HD uint64_t sqrt(uint64_t a) {
    if (is_nan(a)) return quiet(a);
    if (is_zero(a)) return a;
    if (a & kSign) return kDefaultNaN;
    if (is_inf(a)) return a;
    uint64_t ma;
    int ea;
    unpack(a, ma, ea);
    int E = ea - 1075;
    if (E & 1) {
        ma <<= 1;
        E--;
    }
    // the root of R = ma * 2^56 (in [2^108, 2^110)): 55 bits, digit by digit
    uint64_t root = 0, rem = 0;
    for (int i = 54; i >= 0; i--) {
        const int at = 2 * i - 56;  // the pair's place in ma
        const uint64_t pair = at >= 0 ? (ma >> at) & 3 : 0;
        rem = (rem << 2) | pair;
        const uint64_t trial = (root << 2) | 1;
        root <<= 1;
        if (rem >= trial) {
            rem -= trial;
            root |= 1;
        }
    }
    return round_pack(0, 1049 + E / 2, (root << 8) | (rem != 0 ? 1 : 0));
}

// a * b + c rounded once.
SPEEDQA_HD uint64_t fma(uint64_t a, uint64_t b, uint64_t c) {
    if (is_nan(a)) return quiet(a);
    if (is_nan(b)) return quiet(b);
    if (is_nan(c)) return quiet(c);
    const uint64_t sp = (a ^ b) & kSign;
    if (is_inf(a) || is_inf(b)) {
        if (is_zero(a) || is_zero(b)) return kDefaultNaN;
        if (is_inf(c) && (c & kSign) != sp) return kDefaultNaN;
        return sp | kExpMask;
    }
    if (is_inf(c)) return c;
    if (is_zero(a) || is_zero(b)) return add(sp, c);  // the exact product is a signed zero
    if (is_zero(c)) return mul(a, b);
    uint64_t ma, mb, mc;
    int ea, eb, ec;
    unpack(a, ma, ea);
    unpack(b, mb, eb);
    unpack(c, mc, ec);
    // the product P * 2^(ea + eb - 2150), P < 2^106, placed at bits 125..;
    // c's mantissa at the same scale: value = X * 2^(ep - 2150 - 20)
    u128 p = (static_cast<u128>(ma) * mb) << 20;  // < 2^126
    int ep = ea + eb;                              // p stands for p * 2^(ep - 2170)
    // c = mc * 2^(ec - 1075) = (mc << k) * 2^(ec - 1075 - k); at p's scale:
    // ec - 1075 - k = ep - 2170  ->  k = ec - ep + 1095
    u128 q;
    int k = ec - ep + 1095;
    if (k >= 0) {
        // c larger in scale: rescale to c's, with p shifted right
        // mc << 74 < 2^127, and the sum of two numbers under 2^127 fits. Past
        // that, c is over twice the product: the product moves down instead,
        // its low bits sticky, far below the result's last bit.
        if (k > 74) {
            const int down = k - 74;
            p = shift_right_sticky128(p, down);
            ep += down;
            k = 74;
        }
        q = static_cast<u128>(mc) << k;
    } else {
        q = shift_right_sticky128(static_cast<u128>(mc), -k);
    }
    const uint64_t sc = c & kSign;
    u128 m;
    uint64_t sign = sp;
    if (sp == sc) {
        m = p + q;  // both < 2^127: no overflow
    } else if (p >= q) {
        m = p - q;
    } else {
        m = q - p;
        sign = sc;
    }
    if (m == 0) return 0;  // exact cancellation: +0
    const int lead = 127 - clz128(m);
    // value = m * 2^(ep - 2170); bring the leading one to bit 62
    const uint64_t m64 = static_cast<uint64_t>(shift_right_sticky128(m, lead - 62));
    uint64_t m62 = m64;
    if (lead < 62) m62 = static_cast<uint64_t>(m) << (62 - lead);
    // m62 * 2^(e - 1085) = m * 2^(ep - 2170), m62 = m * 2^(62 - lead)
    return round_pack(sign, ep - 2170 + 1085 + lead - 62, m62);
}

// ---- conversions --------------------------------------------------------

SPEEDQA_HD uint64_t from_int64(int64_t v) {
    if (v == 0) return 0;
    const uint64_t sign = v < 0 ? kSign : 0;
    uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const int lead = 63 - clz64(mag);
    const uint64_t m = lead <= 62 ? mag << (62 - lead) : shift_right_sticky(mag, lead - 62);
    return round_pack(sign, 1023 + lead, m);  // mag = m * 2^(lead - 62)
}

SPEEDQA_HD uint64_t from_float_bits(uint32_t f) {
    const uint64_t sign = static_cast<uint64_t>(f >> 31) << 63;
    const int exp = static_cast<int>((f >> 23) & 0xff);
    uint32_t frac = f & 0x7fffff;
    if (exp == 0xff) {
        if (frac == 0) return sign | kExpMask;
        return sign | kExpMask | (uint64_t{1} << 51) | (static_cast<uint64_t>(frac) << 29);  // quieted
    }
    if (exp == 0) {
        if (frac == 0) return sign;
        int e = -126;
        while (!(frac & 0x800000)) {
            frac <<= 1;
            e--;
        }
        return sign | (static_cast<uint64_t>(e + 1023) << 52) | (static_cast<uint64_t>(frac & 0x7fffff) << 29);
    }
    return sign | (static_cast<uint64_t>(exp - 127 + 1023) << 52) | (static_cast<uint64_t>(frac) << 29);
}

// The float nearest (ties to even), as its bits.
SPEEDQA_HD uint32_t to_float_bits(uint64_t a) {
    const uint32_t sign = static_cast<uint32_t>(a >> 63) << 31;
    if (is_nan(a)) return sign | 0x7fc00000u | static_cast<uint32_t>((a & kFracMask) >> 29);
    if (is_inf(a)) return sign | 0x7f800000u;
    if (is_zero(a)) return sign;
    uint64_t ma;
    int ea;
    unpack(a, ma, ea);
    int e = ea - 1023 + 127;  // the float's biased exponent for ma in [2^52, 2^53)
    // the float mantissa: 24 bits of ma (52..29), rounding bits 28..0
    uint64_t m = ma;
    if (e <= 0) {
        m = shift_right_sticky(m, 1 - e);
        e = 0;
    }
    const uint64_t rest = m & ((uint64_t{1} << 29) - 1);
    uint32_t mant = static_cast<uint32_t>(m >> 29);
    const uint64_t half = uint64_t{1} << 28;
    if (rest > half || (rest == half && (mant & 1))) {
        mant++;
        if (e == 0 && mant == 0x800000u) e = 1;
        if (mant == 0x1000000u) {
            mant >>= 1;
            e++;
        }
    }
    if (e >= 0xff) return sign | 0x7f800000u;
    if (e == 0) return sign | mant;
    return sign | (static_cast<uint32_t>(e) << 23) | (mant & 0x7fffffu);
}

// Truncation toward zero of a finite double within int64's range.
SPEEDQA_HD int64_t to_int64(uint64_t a) {
    if (is_zero(a) || is_nan(a)) return 0;
    uint64_t ma;
    int ea;
    unpack(a, ma, ea);
    const int shift = ea - 1075;  // value = ma * 2^shift
    uint64_t mag;
    if (shift >= 0) mag = shift >= 11 ? 0 : ma << shift;
    else mag = -shift >= 64 ? 0 : ma >> -shift;
    return (a & kSign) ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
}

// The integer nearest (ties to even), as a double.
SPEEDQA_HD uint64_t nearbyint(uint64_t a) {
    if (is_nan(a)) return quiet(a);
    if (is_inf(a) || is_zero(a)) return a;
    const int exp = static_cast<int>((a >> 52) & 0x7ff);
    if (exp >= 1075) return a;  // already an integer
    const uint64_t sign = a & kSign;
    if (exp < 1022) return sign;  // below 0.5
    uint64_t ma;
    int ea;
    unpack(a, ma, ea);
    const int frac_bits = 1075 - ea;  // 1 .. 53
    const uint64_t whole = ma >> frac_bits;
    const uint64_t rest = ma & ((uint64_t{1} << frac_bits) - 1), half = uint64_t{1} << (frac_bits - 1);
    const uint64_t r = rest > half || (rest == half && (whole & 1)) ? whole + 1 : whole;
    if (r == 0) return sign;
    const uint64_t v = from_int64(static_cast<int64_t>(r));
    return v | sign;
}

// a < b, a == b as IEEE compares (false with a NaN; -0 == +0).
SPEEDQA_HD bool less(uint64_t a, uint64_t b) {
    if (is_nan(a) || is_nan(b)) return false;
    if (is_zero(a) && is_zero(b)) return false;
    const bool na = a & kSign, nb = b & kSign;
    if (na != nb) return na;
    return na ? a > b : a < b;
}
SPEEDQA_HD bool equal(uint64_t a, uint64_t b) {
    if (is_nan(a) || is_nan(b)) return false;
    return a == b || (is_zero(a) && is_zero(b));
}

}  // namespace soft64_detail

namespace sd = soft64_detail;

SPEEDQA_HD Soft64 soft64_add(Soft64 a, Soft64 b) { return {sd::add(a.bits, b.bits)}; }
SPEEDQA_HD Soft64 soft64_sub(Soft64 a, Soft64 b) { return {sd::add(a.bits, b.bits ^ sd::kSign)}; }
SPEEDQA_HD Soft64 soft64_mul(Soft64 a, Soft64 b) { return {sd::mul(a.bits, b.bits)}; }
SPEEDQA_HD Soft64 soft64_div(Soft64 a, Soft64 b) { return {sd::div(a.bits, b.bits)}; }
SPEEDQA_HD Soft64 soft64_sqrt(Soft64 a) { return {sd::sqrt(a.bits)}; }
SPEEDQA_HD Soft64 soft64_fma(Soft64 a, Soft64 b, Soft64 c) { return {sd::fma(a.bits, b.bits, c.bits)}; }
SPEEDQA_HD Soft64 soft64_neg(Soft64 a) { return {a.bits ^ sd::kSign}; }
SPEEDQA_HD Soft64 soft64_from_int64(int64_t v) { return {sd::from_int64(v)}; }
SPEEDQA_HD Soft64 soft64_from_float_bits(uint32_t f) { return {sd::from_float_bits(f)}; }
SPEEDQA_HD uint32_t soft64_to_float_bits(Soft64 a) { return sd::to_float_bits(a.bits); }
SPEEDQA_HD int64_t soft64_to_int64(Soft64 a) { return sd::to_int64(a.bits); }
SPEEDQA_HD Soft64 soft64_nearbyint(Soft64 a) { return {sd::nearbyint(a.bits)}; }
SPEEDQA_HD bool soft64_less(Soft64 a, Soft64 b) { return sd::less(a.bits, b.bits); }
SPEEDQA_HD bool soft64_equal(Soft64 a, Soft64 b) { return sd::equal(a.bits, b.bits); }

// Soft64 with C's operators, for arithmetic written once over its double
// type: the CPU and fp64 devices instantiate it with `double`, an fp32-only
// device with SoftDouble, and both give the same bits.
struct SoftDouble {
    Soft64 v;
    SoftDouble() = default;
    SPEEDQA_HD static SoftDouble from_bits(uint64_t b) {
        SoftDouble d;
        d.v.bits = b;
        return d;
    }
    // exact from float, int32 and int64 (rounded past 2^53, as C does)
    SPEEDQA_HD explicit SoftDouble(float f) {
        uint32_t b;
        __builtin_memcpy(&b, &f, 4);
        v = soft64_from_float_bits(b);
    }
    SPEEDQA_HD explicit SoftDouble(int32_t i) : v(soft64_from_int64(i)) {}
    SPEEDQA_HD explicit SoftDouble(int64_t i) : v(soft64_from_int64(i)) {}
    SPEEDQA_HD explicit SoftDouble(uint32_t i) : v(soft64_from_int64(static_cast<int64_t>(i))) {}
    // C's conversions: rounded to float, truncated to integers
    SPEEDQA_HD float to_float() const {
        const uint32_t b = soft64_to_float_bits(v);
        float f;
        __builtin_memcpy(&f, &b, 4);
        return f;
    }
    SPEEDQA_HD int64_t to_int64() const { return soft64_to_int64(v); }
    SPEEDQA_HD int32_t to_int32() const { return static_cast<int32_t>(soft64_to_int64(v)); }

    SPEEDQA_HD friend SoftDouble operator+(SoftDouble a, SoftDouble b) { return from_bits(soft64_add(a.v, b.v).bits); }
    SPEEDQA_HD friend SoftDouble operator-(SoftDouble a, SoftDouble b) { return from_bits(soft64_sub(a.v, b.v).bits); }
    SPEEDQA_HD friend SoftDouble operator*(SoftDouble a, SoftDouble b) { return from_bits(soft64_mul(a.v, b.v).bits); }
    SPEEDQA_HD friend SoftDouble operator/(SoftDouble a, SoftDouble b) { return from_bits(soft64_div(a.v, b.v).bits); }
    SPEEDQA_HD friend SoftDouble operator-(SoftDouble a) { return from_bits(soft64_neg(a.v).bits); }
    SPEEDQA_HD friend bool operator<(SoftDouble a, SoftDouble b) { return soft64_less(a.v, b.v); }
    SPEEDQA_HD friend bool operator>(SoftDouble a, SoftDouble b) { return soft64_less(b.v, a.v); }
    SPEEDQA_HD friend bool operator<=(SoftDouble a, SoftDouble b) { return soft64_less(a.v, b.v) || soft64_equal(a.v, b.v); }
    SPEEDQA_HD friend bool operator>=(SoftDouble a, SoftDouble b) { return soft64_less(b.v, a.v) || soft64_equal(a.v, b.v); }
    SPEEDQA_HD friend bool operator==(SoftDouble a, SoftDouble b) { return soft64_equal(a.v, b.v); }
    SPEEDQA_HD friend bool operator!=(SoftDouble a, SoftDouble b) { return !soft64_equal(a.v, b.v); }
    SPEEDQA_HD SoftDouble& operator+=(SoftDouble b) { return *this = *this + b; }
    SPEEDQA_HD SoftDouble& operator-=(SoftDouble b) { return *this = *this - b; }
    SPEEDQA_HD SoftDouble& operator*=(SoftDouble b) { return *this = *this * b; }
    SPEEDQA_HD SoftDouble& operator/=(SoftDouble b) { return *this = *this / b; }
};

// The functions of <cmath> the exact code uses, for either double type
// (distinct names: a float argument must never reach them by promotion).
SPEEDQA_HD SoftDouble dsqrt(SoftDouble a) { return SoftDouble::from_bits(soft64_sqrt(a.v).bits); }
SPEEDQA_HD SoftDouble dfma(SoftDouble a, SoftDouble b, SoftDouble c) {
    return SoftDouble::from_bits(soft64_fma(a.v, b.v, c.v).bits);
}
SPEEDQA_HD SoftDouble dnearbyint(SoftDouble a) { return SoftDouble::from_bits(soft64_nearbyint(a.v).bits); }
SPEEDQA_HD SoftDouble dfabs(SoftDouble a) { return SoftDouble::from_bits(a.v.bits & ~soft64_detail::kSign); }
SPEEDQA_HD double dsqrt(double a) { return ::sqrt(a); }
SPEEDQA_HD double dfma(double a, double b, double c) { return ::fma(a, b, c); }
SPEEDQA_HD double dnearbyint(double a) { return ::nearbyint(a); }
SPEEDQA_HD double dfabs(double a) { return ::fabs(a); }

}  // namespace speedqa::exact
