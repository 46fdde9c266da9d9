// The support-vector regression inside a VMAF model: libsvm's model text
// (model_dict.model) for nu-SVR with the RBF kernel, read as libvmaf's svm.cpp
// reads it, and its decision function in svm.cpp's order of operations.
#pragma once

#include <string_view>
#include <vector>

namespace speedqa::model {

class Svr {
public:
    // Reads a libsvm model text whose vectors have `dims` components
    // (feature indices 1..dims). Throws speedqa::Error with one line that
    // says what is wrong (without the file name: the caller adds it).
    static Svr parse(std::string_view text, int dims);

    int dims() const { return dims_; }
    int support_vectors() const { return static_cast<int>(coef_.size()); }

    // sum_i coef_i * exp(-gamma * |x - sv_i|^2) - rho, for x[0..dims).
    //
    // libsvm walks the sparse vectors of x and sv_i by index and adds
    // (x_k - s_k)^2 where both have index k, x_k^2 or s_k^2 where one lacks
    // it. A missing component is stored here as 0, which gives the same bits
    // ((x - 0)^2 == x * x exactly), in the same order (ascending index), so
    // the sum runs over dense rows. exp is the C library's, as in libvmaf.
    double decision(const double* x) const;

private:
    int dims_ = 0;
    double gamma_ = 0, rho_ = 0;
    std::vector<double> coef_;  // one per support vector
    std::vector<double> sv_;    // support vectors, dims_ values each
};

}  // namespace speedqa::model
