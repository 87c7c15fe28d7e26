#include "kernels/cpu/linear.h"

#include <Eigen/Core>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMat = Eigen::Map<const RowMajor>;
using Mat = Eigen::Map<RowMajor>;

template <class A, class B>
void product_into(const A& a, const B& b, Mat& c, bool accumulate) {
  if (accumulate) {
    c.noalias() += a * b;
  } else {
    c.noalias() = a * b;
  }
}

// Dispatches on B's storage once A's has been fixed.
template <class A>
void product_b(const MatmulShape& s, const A& a, const float* b, Mat& c) {
  if (s.transpose_b) {
    const ConstMat bm(b, s.n, s.k);
    product_into(a, bm.transpose(), c, s.accumulate);
  } else {
    const ConstMat bm(b, s.k, s.n);
    product_into(a, bm, c, s.accumulate);
  }
}

}  // namespace

void matmul(const MatmulShape& s, const float* a, const float* b, float* c) {
  ZS_CHECK(s.m >= 1 && s.n >= 1 && s.k >= 1);
  ZS_CHECK(a != nullptr && b != nullptr && c != nullptr);
  Mat cm(c, s.m, s.n);
  if (s.transpose_a) {
    const ConstMat am(a, s.k, s.m);
    product_b(s, am.transpose(), b, cm);
  } else {
    const ConstMat am(a, s.m, s.k);
    product_b(s, am, b, cm);
  }
}

void linear_forward(const models::GemmShape& s, const float* x, const float* w, const float* bias,
                    float* y) {
  ZS_CHECK(s.m >= 1 && s.n >= 1 && s.k >= 1);
  ZS_CHECK(x != nullptr && w != nullptr && y != nullptr);
  ZS_CHECK_MSG(s.bias == (bias != nullptr), "bias must be given exactly when GemmShape.bias");
  matmul({.m = s.m, .n = s.n, .k = s.k, .transpose_b = true}, x, w, y);
  if (s.bias) {
    Mat ym(y, s.m, s.n);
    const Eigen::Map<const Eigen::RowVectorXf> bm(bias, s.n);
    ym.rowwise() += bm;
  }
}

void linear_backward(const models::GemmShape& s, const float* dy, const float* x, const float* w,
                     float* dx, float* dw, float* dbias) {
  ZS_CHECK(s.m >= 1 && s.n >= 1 && s.k >= 1);
  ZS_CHECK(dy != nullptr && x != nullptr && w != nullptr && dx != nullptr && dw != nullptr);
  ZS_CHECK_MSG(s.bias == (dbias != nullptr), "dbias must be given exactly when GemmShape.bias");
  // dx (m, k) = dy (m, n) · w (n, k)
  matmul({.m = s.m, .n = s.k, .k = s.n}, dy, w, dx);
  // dw (n, k) += dyᵀ (n, m) · x (m, k)
  matmul({.m = s.n, .n = s.k, .k = s.m, .transpose_a = true, .accumulate = true}, dy, x, dw);
  if (s.bias) {
    // Column sums in double: m is the token count and may be thousands of rows.
    const ConstMat dym(dy, s.m, s.n);
    Eigen::Map<Eigen::RowVectorXf> db(dbias, s.n);
    db += dym.cast<double>().colwise().sum().cast<float>();
  }
}

}  // namespace zs::kernels::cpu
