#ifndef XLA_CLIENT_CLI_NPY_H_
#define XLA_CLIENT_CLI_NPY_H_

// NumPy .npy files <-> array Literals.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, little- and big-endian dtypes
// ('<f4', '>i8', '|b1', '|u1', '<f2', '<c8', '<c16', ...; also the names 'bool', 'float32' ...),
// C order and fortran_order=True (transposed to logical row-major order), any rank
// including scalars and zero-size arrays. NumPy has no bfloat16 or float8 types: such
// data can only be expressed with ml_dtypes' descr names ('bfloat16', 'float8_e4m3fn',
// 'int4', ...), which are accepted. A void ('V2') or '<u2' array is NOT taken as bf16:
// its element type is what its descr says (void is rejected). Structured dtypes and
// object arrays are rejected.
//
// Hostile input never crashes or allocates without bound: the header length, the header
// syntax, the shape (non-negative, overflow-free) and element count * item size are all
// checked against the file size before any data is allocated.
//
// Writing produces version 1.0 (2.0 when the header does not fit), C order, little-endian.
// Types without a NumPy equivalent (BF16, F8*, F4E2M1FN, S2/S4/U2/U4) are written with the
// ml_dtypes descr name, which numpy can load once ml_dtypes is imported. S1 and U1 are
// written as '|i1' / '|u1' (no ml_dtypes type exists), so they read back as S8 / U8.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/literal.h"

namespace xla {
namespace npy {

// Parses the bytes of a .npy file. The literal has the default (descending) layout.
absl::StatusOr<Literal> ParseNpy(std::string_view bytes);
absl::StatusOr<Literal> ReadNpyFile(const std::string& path);

// Serializes an array literal (any layout) as .npy bytes. Tuples and tokens are errors.
absl::StatusOr<std::string> SerializeNpy(const Literal& literal);
absl::Status WriteNpyFile(const std::string& path, const Literal& literal);

// The descr NumPy / ml_dtypes use for `type` ('<f4', '|b1', 'bfloat16', ...).
absl::StatusOr<std::string> NpyDescrFor(PrimitiveType type);

}  // namespace npy
}  // namespace xla

#endif  // XLA_CLIENT_CLI_NPY_H_
