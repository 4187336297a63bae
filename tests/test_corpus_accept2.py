"""A fourth corpus of realistic NumPy programs: those written by two acceptance campaigns of session 19.

Same pattern as tests/test_corpus_accept.py: each program is written as users write NumPy, with an
input maker ``make(n, rng)``, and runs differentially against NumPy at two sizes. The domains:
numerical linear algebra by hand (pivoting LU, Householder/Givens QR, Jacobi and QR eigenvalue
iterations, banded and packed storage), dynamic programming (edit distances, knapsack, DP tables
filled cell by cell), physics and chemistry (lattice Boltzmann, molecular dynamics, Monte Carlo
spin models, state vectors, RK4), neural-network layers and training by hand, graphics and
geometry, bioinformatics and text, climate and geoscience, economics and operations, and dtype
mixes inside domain code. Several pin a fix of a bug a campaign found; their comments name it.
Those whose bug showed only under jax.jit(pure(f)) or bit for bit with fma=False keep the form
that found it; the library's own tests check those conditions.

Every test here is marked slow (one XLA compile per program and size): run it with
``pytest -m slow tests/test_corpus_accept2.py``.
"""

import warnings

import numpy as np
import pytest
from marks import registrar

from elena_jax.testing import check_against_numpy

pytestmark = pytest.mark.slow

SIZES = (3, 5)
CORPUS = []
case = registrar(CORPUS, SIZES)


# === linear algebra by hand ===============================================================
def _square(n, rng):
    return (rng.standard_normal((n, n)),)


def _square_rhs(n, rng):
    return rng.standard_normal((n, n)), rng.standard_normal(n)


def _spd(n, rng):
    m = rng.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n),)


def _sym(n, rng):
    m = rng.standard_normal((n, n))
    return ((m + m.T) / 2,)


def _tall(n, rng):
    return (rng.standard_normal((n + 2, n)),)


@case(_square)
def lu_partial_pivot_fancy_swap(a):
    """LU with partial pivoting in place, rows swapped with fancy indexing and a traced pivot.

    With the QR and Hessenberg programs below, pins np.outer under fma=False as NumPy's products (e312948)."""
    n = a.shape[0]
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(a[k:, k]))
        a[[k, p]] = a[[p, k]]
        perm[[k, p]] = perm[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return perm


@case(_square_rhs)
def lu_solve_with_pivot_vector(a, b):
    """Doolittle with row swaps done by a temporary copy, then forward/back substitution."""
    n = a.shape[0]
    piv = np.zeros(n, dtype=np.int64)
    for k in range(n):
        p = np.argmax(np.abs(a[k:, k])) + k
        piv[k] = p
        tmp = a[k].copy()
        a[k] = a[p]
        a[p] = tmp
        t = b[k]
        b[k] = b[p]
        b[p] = t
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
        a[k + 1:, k + 1:] = a[k + 1:, k + 1:] - a[k + 1:, k:k + 1] * a[k:k + 1, k + 1:]
    y = b.copy()
    for i in range(1, n):
        y[i] -= a[i, :i] @ y[:i]
    x = np.empty_like(y)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - a[i, i + 1:] @ x[i + 1:]) / a[i, i]
    return x, piv


@case(_spd)
def crout_lu_loops(a):
    """Crout's method: L has the diagonal, U unit upper; filled column/row at a time."""
    n = a.shape[0]
    L = np.zeros_like(a)
    U = np.eye(n)
    for j in range(n):
        for i in range(j, n):
            L[i, j] = a[i, j] - L[i, :j] @ U[:j, j]
        for i in range(j + 1, n):
            U[j, i] = (a[j, i] - L[j, :j] @ U[:j, i]) / L[j, j]
    return L, U, np.prod(np.diag(L))


@case(_spd)
def cholesky_in_place_lower(a):
    """Cholesky-Banachiewicz in the lower triangle of a, upper zeroed through triu_indices."""
    n = a.shape[0]
    for j in range(n):
        a[j, j] = np.sqrt(a[j, j] - np.dot(a[j, :j], a[j, :j]))
        a[j + 1:, j] = (a[j + 1:, j] - a[j + 1:, :j] @ a[j, :j]) / a[j, j]
    a[np.triu_indices(n, 1)] = 0.0
    logdet = 2.0 * np.log(np.diagonal(a)).sum()
    return a, logdet


@case(_tall)
def householder_qr_accumulate(a):
    """Householder QR: R in place in a copy, Q accumulated by applying reflectors on the right."""
    m, n = a.shape
    R = a.astype(np.float64, copy=True)
    Q = np.eye(m)
    for k in range(n):
        x = R[k:, k]
        v = x.copy()
        v[0] += np.copysign(np.linalg.norm(x), x[0])
        v /= np.linalg.norm(v)
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    R[np.tril_indices(m, -1, n)] = 0.0
    return Q, R


@case(_tall)
def modified_gram_schmidt(a):
    m, n = a.shape
    Q = a.copy()
    R = np.zeros((n, n))
    for k in range(n):
        R[k, k] = np.linalg.norm(Q[:, k])
        Q[:, k] /= R[k, k]
        R[k, k + 1:] = Q[:, k] @ Q[:, k + 1:]
        Q[:, k + 1:] -= np.outer(Q[:, k], R[k, k + 1:])
    return Q, R


@case(_tall)
def givens_qr_row_pairs(a):
    """Givens rotations applied in place to row pairs, bottom up, with a 2x2 matrix product."""
    m, n = a.shape
    r = a.copy()
    g_count = np.zeros(1, dtype=np.int32)
    for j in range(n):
        for i in range(m - 1, j, -1):
            x, y = r[i - 1, j], r[i, j]
            h = np.hypot(x, y)
            c, s = x / h, y / h
            G = np.array([[c, s], [-s, c]])
            r[i - 1:i + 1, j:] = G @ r[i - 1:i + 1, j:]
            r[i, j] = 0.0
            g_count += 1
    return r, g_count


@case(_square)
def givens_rotations_rows_by_copy(a):
    """Reduce to upper Hessenberg-like form with rotations written row by row (tmp copies)."""
    n = a.shape[0]
    for j in range(n - 2):
        for i in range(n - 1, j + 1, -1):
            x, y = a[i - 1, j], a[i, j]
            h = np.sqrt(x * x + y * y)
            c, s = x / h, y / h
            tmp = a[i - 1, :].copy()
            a[i - 1, :] = c * tmp + s * a[i, :]
            a[i, :] = -s * tmp + c * a[i, :]
            tmpc = a[:, i - 1].copy()
            a[:, i - 1] = c * tmpc + s * a[:, i]
            a[:, i] = -s * tmpc + c * a[:, i]
    return np.trace(a)


def _sym_vec(n, rng):
    m = rng.standard_normal((n, n))
    return m @ m.T + np.diag(np.arange(1.0, n + 1) * n), rng.standard_normal(n)


@case(_sym_vec)
def power_iteration_out_args(a, v):
    """Fixed-count power iteration with matmul/divide into out= buffers and a Rayleigh quotient."""
    w = np.empty_like(v)
    lam = np.zeros(30)
    for it in range(30):
        np.matmul(a, v, out=w)
        nrm = np.linalg.norm(w)
        np.divide(w, nrm, out=v)
        lam[it] = v @ a @ v
    return lam[-1], np.abs(np.diff(lam)).max()


@case(_sym, sizes=(3, 4))
def jacobi_eigen_cyclic_sweeps(a):
    """Cyclic Jacobi: rotations through arctan2 (no branch), columns and rows rotated in place."""
    n = a.shape[0]
    V = np.eye(n)
    for _ in range(5):
        for p in range(n - 1):
            for q in range(p + 1, n):
                phi = 0.5 * np.arctan2(2 * a[p, q], a[q, q] - a[p, p])
                c, s = np.cos(phi), np.sin(phi)
                ap, aq = a[:, p].copy(), a[:, q].copy()
                a[:, p] = c * ap - s * aq
                a[:, q] = s * ap + c * aq
                ap, aq = a[p, :].copy(), a[q, :].copy()
                a[p, :] = c * ap - s * aq
                a[q, :] = s * ap + c * aq
                vp, vq = V[:, p].copy(), V[:, q].copy()
                V[:, p] = c * vp - s * vq
                V[:, q] = s * vp + c * vq
    return np.sort(np.diag(a)), V


def _tri_multi(n, rng):
    L = np.tril(rng.standard_normal((n, n))) + 3 * np.eye(n)
    return L, rng.standard_normal((n, 3)).astype(np.float32)


@case(_tri_multi)
def triangular_solves_loops_float32_rhs(L, B):
    """Forward substitution with a float32 RHS (promoted), then back substitution with L.T."""
    n = L.shape[0]
    Y = np.zeros(B.shape, dtype=np.result_type(L, B))
    for i in range(n):
        Y[i, :] = (B[i, :] - L[i, :i] @ Y[:i, :]) / L[i, i]
    U = L.T
    X = np.zeros_like(Y)
    for i in reversed(range(n)):
        X[i] = (Y[i] - U[i, i + 1:] @ X[i + 1:]) / U[i, i]
    B[:] = X  # result written back into the float32 RHS (cast)
    return X


def _tridiag(n, rng):
    A = np.zeros((n, n))
    d = rng.uniform(4, 5, n)
    A.flat[::n + 1] = d
    A.flat[1::n + 1] = rng.uniform(-1, 1, n - 1)
    A.flat[n::n + 1] = rng.uniform(-1, 1, n - 1)
    return A, rng.standard_normal(n)


@case(_tridiag)
def thomas_on_strided_diagonal_views(A, d):
    """Thomas algorithm with the three diagonals taken as strided views of A.ravel()."""
    n = A.shape[0]
    flat = A.reshape(-1)
    b = flat[::n + 1]          # main diagonal (a view)
    c = flat[1::n + 1]         # super diagonal
    a = flat[n::n + 1]         # sub diagonal
    b += 0.5                   # shift, writes into A
    cp = np.zeros(n - 1)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        den = b[i] - a[i - 1] * cp[i - 1]
        if i < n - 1:
            cp[i] = c[i] / den
        dp[i] = (d[i] - a[i - 1] * dp[i - 1]) / den
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    rhs = d.copy()
    d[:] = x
    return np.abs(A @ x - rhs).max()


def _banded(n, rng):
    return (rng.standard_normal((n + 1, n + 1)),)


@case(_banded)
def lapack_band_storage_matvec(a):
    """Dense -> LAPACK band storage ab[u + i - j, j] = a[i, j] (kl=1, ku=2), band matvec."""
    n = a.shape[0]
    kl, ku = 1, 2
    ab = np.zeros((kl + ku + 1, n))
    for j in range(n):
        lo, hi = max(0, j - ku), min(n, j + kl + 1)
        ab[ku + lo - j:ku + hi - j, j] = a[lo:hi, j]
    x = np.arange(1.0, n + 1)
    y = np.zeros(n)
    for j in range(n):
        lo, hi = max(0, j - ku), min(n, j + kl + 1)
        y[lo:hi] += ab[ku + lo - j:ku + hi - j, j] * x[j]
    dense_band = np.triu(np.tril(a, ku), -kl)
    return ab, y, y - dense_band @ x


@case(_square)
def gauss_jordan_inverse_augmented(a):
    """Pins an argmax of float64 (np.hstack([a, np.eye(n)])) inside a caller's 32-bit jax.jit(pure(f)) (b75591f)."""
    n = a.shape[0]
    aug = np.hstack([a, np.eye(n)])
    for k in range(n):
        p = k + np.argmax(np.abs(aug[k:, k]))
        aug[[k, p], :] = aug[[p, k], :]
        aug[k] /= aug[k, k]
        factors = aug[:, k].copy()
        factors[k] = 0.0
        aug -= factors[:, None] * aug[k]
    return aug[:, n:]


@case(_square)
def determinant_by_elimination_sign(a):
    """det with partial pivoting; the sign flips where the traced pivot differs from k."""
    n = a.shape[0]
    u = a.copy()
    sign = 1.0
    for k in range(n - 1):
        p = k + np.argmax(np.abs(u[k:, k]))
        sign = sign * np.where(p != k, -1.0, 1.0)
        row_k = u[k].copy()
        u[k] = u[p]
        u[p] = row_k
        u[k + 1:] -= (u[k + 1:, k] / u[k, k])[:, None] * u[k]
    return sign * np.prod(np.diagonal(u)), np.linalg.det(a)


def _hess(n, rng):
    return (rng.standard_normal((n + 1, n + 1)),)


@case(_hess)
def hessenberg_householder_in_place(a):
    n = a.shape[0]
    for k in range(n - 2):
        x = a[k + 1:, k]
        alpha = -np.copysign(np.linalg.norm(x), x[0])
        v = x.copy()
        v[0] -= alpha
        v /= np.linalg.norm(v)
        a[k + 1:, k:] -= 2.0 * np.outer(v, v @ a[k + 1:, k:])
        a[:, k + 1:] -= 2.0 * np.outer(a[:, k + 1:] @ v, v)
    below = np.tril(a, -2)
    return np.abs(below).max(), np.trace(a)


def _diag_dominant(n, rng):
    a = rng.standard_normal((n, n))
    a[np.diag_indices(n)] = np.abs(a).sum(axis=1) + 1.0
    return a, rng.standard_normal(n), np.zeros(n)


@case(_diag_dominant)
def sor_sweeps_in_place(a, b, x):
    n = a.shape[0]
    w = 1.2
    res = np.zeros(6)
    for sweep in range(6):
        for i in range(n):
            sigma = a[i, :i] @ x[:i] + a[i, i + 1:] @ x[i + 1:]
            x[i] = (1 - w) * x[i] + w * (b[i] - sigma) / a[i, i]
        res[sweep] = np.linalg.norm(b - a @ x)
    return res


@case(_sym)
def qr_algorithm_fixed_iterations(a):
    n = a.shape[0]
    Ak = a + 0.0
    V = np.eye(n)
    for _ in range(6):
        mu = Ak[-1, -1]
        Q, R = np.linalg.qr(Ak - mu * np.eye(n))
        Ak = R @ Q + mu * np.eye(n)
        V = V @ Q
    return np.sort(np.diag(Ak)), np.linalg.eigvalsh(a)


def _complex_square(n, rng):
    return (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)) + 3 * np.eye(n),)


@case(_complex_square)
def complex_lu_no_pivot_in_place(a):
    n = a.shape[0]
    for k in range(n - 1):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= a[k + 1:, k, None] * a[None, k, k + 1:]
    L = np.tril(a, -1) + np.eye(n)
    U = np.triu(a)
    return L @ U, np.prod(a.diagonal())


def _f32_system(n, rng):
    a = (rng.standard_normal((n, n)) + n * np.eye(n)).astype(np.float32)
    return a, rng.standard_normal(n).astype(np.float32)


@case(_f32_system)
def mixed_precision_iterative_refinement(a, b):
    """Solve in float32, refine residuals in float64, write the solution back in float32."""
    x = np.linalg.solve(a, b)
    a64 = a.astype(np.float64)
    x64 = x.astype(np.float64)
    hist = np.empty(4, dtype=np.float64)
    for it in range(4):
        r = b.astype(np.float64) - a64 @ x64
        hist[it] = np.abs(r).max()
        dx = np.linalg.solve(a, r.astype(np.float32))
        x64 += dx
    b[...] = x64
    return x, x64, hist[-1] < 1e-9


@case(_spd)
def block_lu_schur_in_place(a):
    """2x2 block elimination: the Schur complement written into the lower-right view."""
    n = a.shape[0]
    k = n // 2
    A11, A12 = a[:k, :k], a[:k, k:]
    A21, A22 = a[k:, :k], a[k:, k:]
    L21 = A21 @ np.linalg.inv(A11)
    A22 -= L21 @ A12
    A21[...] = L21
    return np.linalg.det(A11) * np.linalg.det(A22)


def _arnoldi(n, rng):
    return rng.standard_normal((n + 2, n + 2)), rng.standard_normal(n + 2)


@case(_arnoldi)
def arnoldi_modified_gs(a, b):
    m = 4
    n = a.shape[0]
    Q = np.zeros((n, m + 1))
    H = np.zeros((m + 1, m))
    Q[:, 0] = b / np.linalg.norm(b)
    for j in range(m):
        w = a @ Q[:, j]
        for i in range(j + 1):
            H[i, j] = Q[:, i] @ w
            w -= H[i, j] * Q[:, i]
        H[j + 1, j] = np.linalg.norm(w)
        Q[:, j + 1] = w / H[j + 1, j]
    return Q, H, np.linalg.norm(a @ Q[:, :m] - Q @ H)


def _chol_update(n, rng):
    m = rng.standard_normal((n, n))
    return np.linalg.cholesky(m @ m.T + n * np.eye(n)), rng.standard_normal(n)


@case(_chol_update)
def cholesky_rank1_update_in_place(L, x):
    """Rank-one update of a lower Cholesky factor in place (the classic cholupdate loop)."""
    n = L.shape[0]
    for k in range(n):
        r = np.sqrt(L[k, k] ** 2 + x[k] ** 2)
        c = r / L[k, k]
        s = x[k] / L[k, k]
        L[k, k] = r
        L[k + 1:, k] = (L[k + 1:, k] + s * x[k + 1:]) / c
        x[k + 1:] = c * x[k + 1:] - s * L[k + 1:, k]
    return L @ L.T


def _packed(n, rng):
    return (rng.standard_normal(n * (n + 1) // 2),)


@case(_packed)
def packed_symmetric_unpack_through_transpose(ap):
    """Upper-packed symmetric storage unpacked with a fancy write into a and into a.T."""
    m = int((np.sqrt(8 * ap.size + 1) - 1) / 2)
    a = np.zeros((m, m))
    iu = np.triu_indices(m)
    a[iu] = ap
    a.T[iu] = ap
    ap *= 2.0
    return a, np.linalg.eigvalsh(a)


@case(_square)
def lu_complete_pivoting_row_and_column_swaps(a):
    """LU with complete pivoting: traced (p, q) from unravel_index; rows and columns swapped
    with fancy indexing, the column permutation kept in an int32 array."""
    n = a.shape[0]
    rows = np.arange(n)
    cols = np.arange(n, dtype=np.int32)
    for k in range(n - 1):
        sub = np.abs(a[k:, k:])
        p, q = np.unravel_index(np.argmax(sub), sub.shape)
        p, q = p + k, q + k
        a[[k, p]] = a[[p, k]]
        a[:, [k, q]] = a[:, [q, k]]
        rows[[k, p]] = rows[[p, k]]
        cols[[k, q]] = cols[[q, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= a[k + 1:, k:k + 1] * a[k:k + 1, k + 1:]
    return rows, cols, np.abs(np.diagonal(a)).min()


@case(_square)
def symmetrize_in_place_overlapping_transpose(a):
    """a += a.T (NumPy buffers the overlapping operand), diagonal written through the einsum
    view, a reversed view added into its own base."""
    a += a.T
    np.multiply(a, 0.5, out=a)
    d = np.einsum("ii->i", a)
    d += 1.0
    r = a[::-1]
    r += a
    np.fill_diagonal(a[::2, ::2], -7.0)
    return np.trace(a), a.sum(axis=0)


def _complex_tall(n, rng):
    return (rng.standard_normal((n + 1, n)) + 1j * rng.standard_normal((n + 1, n)),)


@case(_complex_tall, sizes=(2, 3))
def complex_givens_qr_in_place(a):
    m, n = a.shape
    for j in range(n):
        for i in range(m - 1, j, -1):
            f, g = a[i - 1, j], a[i, j]
            r = np.sqrt(np.abs(f) ** 2 + np.abs(g) ** 2)
            c = np.abs(f) / r
            s = (f / np.abs(f)) * np.conj(g) / r
            top = a[i - 1, j:].copy()
            a[i - 1, j:] = c * top + s * a[i, j:]
            a[i, j:] = -np.conj(s) * top + c * a[i, j:]
    return np.abs(np.tril(a, -1)).max(), np.abs(np.diagonal(a))


# === dynamic programming ==================================================================
def _two_strings(n, rng):
    return (rng.integers(0, 4, n).astype(np.uint8), rng.integers(0, 4, n + 2).astype(np.uint8))


@case(_two_strings)
def levenshtein_rows_vectorized(s, t):
    """Row-by-row edit distance: substitutions/deletions vectorized, insertions by a running min."""
    m, n = len(s), len(t)
    prev = np.arange(n + 1, dtype=np.int32)
    cur = np.empty_like(prev)
    j = np.arange(n + 1, dtype=np.int32)
    for i in range(1, m + 1):
        cur[0] = i
        cost = (s[i - 1] != t).astype(np.int32)
        cur[1:] = np.minimum(prev[1:] + 1, prev[:-1] + cost)
        cur[:] = np.minimum.accumulate(cur - j) + j   # insertions
        prev, cur = cur, prev
    return prev[-1], prev


@case(_two_strings)
def levenshtein_full_table_scalar_loops(s, t):
    m, n = len(s), len(t)
    D = np.zeros((m + 1, n + 1), dtype=np.int16)
    D[:, 0] = np.arange(m + 1)
    D[0, :] = np.arange(n + 1)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            sub = D[i - 1, j - 1] + (s[i - 1] != t[j - 1])
            D[i, j] = np.minimum(np.minimum(D[i - 1, j] + 1, D[i, j - 1] + 1), sub)
    return D


def _nw(n, rng):
    sub = rng.integers(-3, 5, (4, 4)).astype(np.int32)
    sub = np.maximum(sub, sub.T)
    return rng.integers(0, 4, n), rng.integers(0, 4, n + 1), sub


@case(_nw)
def needleman_wunsch_antidiagonals(a, b, sub):
    """Global alignment filled by anti-diagonals with fancy writes at static indices."""
    gap = -2
    m, n = len(a), len(b)
    H = np.zeros((m + 1, n + 1), dtype=np.int32)
    H[:, 0] = gap * np.arange(m + 1)
    H[0, :] = gap * np.arange(n + 1)
    for d in range(2, m + n + 1):
        i = np.arange(max(1, d - n), min(m, d - 1) + 1)
        j = d - i
        diag = H[i - 1, j - 1] + sub[a[i - 1], b[j - 1]]
        up = H[i - 1, j] + gap
        left = H[i, j - 1] + gap
        H[i, j] = np.maximum(np.maximum(diag, up), left)
    return H[m, n], H


def _knap(n, rng):
    return (rng.uniform(1, 10, n).round(2),)


KNAP_WEIGHTS = [3, 4, 2, 5, 7, 1, 6, 3, 2, 4]


@case(_knap)
def knapsack_01_slice_max(values):
    """0/1 knapsack over capacity; the RHS dp[:-w] is read whole before dp[w:] is written."""
    cap = 15
    dp = np.zeros(cap + 1)
    take = np.zeros((len(values), cap + 1), dtype=bool)
    for i, v in enumerate(values):
        w = KNAP_WEIGHTS[i]
        cand = dp[:-w] + v
        take[i, w:] = cand > dp[w:]
        dp[w:] = np.maximum(dp[w:], dp[:-w] + v)
    return dp, take


@case(_knap)
def knapsack_01_in_place_out_overlap(values):
    """The same knapsack with np.maximum(..., out=dp[w:]) whose input overlaps the output."""
    cap = 15
    dp = np.zeros(cap + 1)
    for i in range(len(values)):
        w = KNAP_WEIGHTS[i]
        np.maximum(dp[w:], dp[:-w] + values[i], out=dp[w:])
    return dp


def _coins(n, rng):
    return (np.full(20 + n, 10 ** 6, dtype=np.int32),)


@case(_coins)
def coin_change_unbounded_scalar_and_overlap(dp):
    """Unbounded coin change with a scalar loop (reads its own writes) and a 0/1 variant
    written with an overlapping in-place op (reads the old values)."""
    coins = [1, 3, 4, 7]
    dp[0] = 0
    for c in coins:
        for x in range(c, len(dp)):
            dp[x] = np.minimum(dp[x], dp[x - c] + 1)
    once = np.full_like(dp, 10 ** 6)
    once[0] = 0
    for c in coins:
        np.minimum(once[c:], once[:-c] + 1, out=once[c:])
    return once


def _subset(n, rng):
    return (np.zeros(30 + n, dtype=bool),)


@case(_subset)
def subset_sum_reachable_ior_overlap(reach):
    """Subset sum bitset: reach[s:] |= reach[:-s] (NumPy buffers the overlapping operand)."""
    reach[0] = True
    sizes = [3, 5, 9, 11]
    for s in sizes:
        reach[s:] |= reach[:-s]
    counts = np.zeros(len(reach), dtype=np.int64)
    counts[0] = 1
    for s in sizes:
        counts[s:] += counts[:-s].copy()
    return counts


def _lcs(n, rng):
    return rng.integers(0, 3, n + 1).astype(np.int8), rng.integers(0, 3, n).astype(np.int8)


@case(_lcs)
def lcs_table_and_backtrack_scalar(x, y):
    m, n = len(x), len(y)
    L = np.zeros((m + 1, n + 1), dtype=np.int32)
    for i in range(m):
        eq = x[i] == y
        L[i + 1, 1:] = np.where(eq, L[i, :-1] + 1, np.maximum(L[i, 1:], 0))
        for j in range(1, n + 1):  # left neighbour needs the row's own new values
            L[i + 1, j] = np.maximum(L[i + 1, j], L[i + 1, j - 1])
    return L


def _mdp(n, rng):
    A, S = 3, n + 2
    P = rng.dirichlet(np.ones(S), (A, S))
    R = rng.standard_normal((S, A))
    return P, R


@case(_mdp)
def value_iteration_mdp(P, R):
    gamma = 0.9
    S = R.shape[0]
    V = np.zeros(S)
    Q = np.empty_like(R)
    for _ in range(40):
        Q[...] = R + gamma * np.einsum("ast,t->sa", P, V)
        V[:] = Q.max(axis=1)
    policy = Q.argmax(axis=1)
    return V, policy


@case(_mdp)
def policy_evaluation_gauss_seidel_traced_policy(P, R):
    """Policy iteration: Gauss-Seidel evaluation indexing P and R by the traced policy."""
    gamma = 0.8
    S = R.shape[0]
    pi = np.zeros(S, dtype=np.int64)
    V = np.zeros(S)
    for _ in range(3):
        for _ in range(5):
            for s in range(S):
                V[s] = R[s, pi[s]] + gamma * P[pi[s], s] @ V
        Q = R + gamma * np.einsum("ast,t->sa", P, V)
        pi[:] = np.argmax(Q, axis=1)
    return V, pi


def _chain(n, rng):
    return (rng.integers(2, 20, n + 2).astype(np.int64),)


@case(_chain)
def matrix_chain_order(p):
    n = len(p) - 1
    m = np.zeros((n, n), dtype=np.int64)
    split = np.zeros((n, n), dtype=np.int64)
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            costs = m[i, i:j] + m[i + 1:j + 1, j] + p[i] * p[i + 1:j + 1] * p[j + 1]
            m[i, j] = costs.min()
            split[i, j] = i + np.argmin(costs)
    return m[0, n - 1], split


def _seq(n, rng):
    return (rng.integers(0, 20, 2 * n).astype(np.int16),)


@case(_seq)
def longest_increasing_subsequence_quadratic(a):
    n = len(a)
    dp = np.ones(n, dtype=np.int32)
    prev = np.full(n, -1)
    for i in range(1, n):
        cand = np.where(a[:i] < a[i], dp[:i], 0)
        dp[i] = 1 + cand.max()
        prev[i] = np.where(cand.max() > 0, np.argmax(cand), -1)
    return dp.max(), prev


def _intervals(n, rng):
    start = rng.uniform(0, 10, n + 3)
    end = start + rng.uniform(0.5, 4, n + 3)
    order = np.argsort(end)
    return start[order], end[order], rng.uniform(1, 5, n + 3)


@case(_intervals)
def weighted_interval_scheduling(start, end, w):
    n = len(w)
    p = np.searchsorted(end, start, side="right")
    dp = np.zeros(n + 1)
    for j in range(n):
        dp[j + 1] = np.fmax(dp[j], w[j] + dp[p[j]])
    return dp, p


def _edges(n, rng):
    V = n + 2
    E = 3 * V
    src = rng.integers(0, V, E)
    dst = rng.integers(0, V, E)
    w = rng.uniform(0.5, 5, E)
    return src, dst, w, np.full(V, np.inf)


@case(_edges)
def bellman_ford_minimum_at(src, dst, w, dist):
    V = dist.shape[0]
    dist[0] = 0.0
    for _ in range(V - 1):
        np.minimum.at(dist, dst, dist[src] + w)
    relaxable = (dist[src] + w < dist[dst]).any()
    return relaxable


def _prices(n, rng):
    return (np.cumsum(rng.standard_normal(4 * n)) + 50,)


@case(_prices)
def stock_k_transactions_dp(prices):
    K = 3
    buy = np.full(K + 1, -np.inf)
    sell = np.zeros(K + 1)
    for p in prices:
        buy[1:] = np.maximum(buy[1:], sell[:-1] - p)
        sell[1:] = np.maximum(sell[1:], buy[1:] + p)
    return sell[-1], sell


def _grid(n, rng):
    g = rng.random((n + 1, n + 2)) < 0.2
    g[0, 0] = g[-1, -1] = False
    return (g,)


@case(_grid)
def grid_paths_with_obstacles(blocked):
    h, w = blocked.shape
    dp = np.zeros((h, w), dtype=np.int64)
    dp[0, 0] = 1
    for i in range(h):
        for j in range(w):
            if i == 0 and j == 0:
                continue
            up = dp[i - 1, j] if i > 0 else 0
            left = dp[i, j - 1] if j > 0 else 0
            dp[i, j] = np.where(blocked[i, j], 0, up + left)
    return dp[-1, -1], dp


@case(_two_strings)
def edit_distance_batched_pairs(s, t):
    """Many pairs at once: (B, n) tables, rows vectorized over the batch, cells looped."""
    B = 4
    S = np.stack([np.roll(s, k) for k in range(B)])
    T = np.stack([np.roll(t, -k) for k in range(B)])
    m, n = S.shape[1], T.shape[1]
    prev = np.tile(np.arange(n + 1), (B, 1))
    for i in range(1, m + 1):
        cur = np.empty_like(prev)
        cur[:, 0] = i
        for j in range(1, n + 1):
            cur[:, j] = np.minimum(np.minimum(prev[:, j] + 1, cur[:, j - 1] + 1),
                                   prev[:, j - 1] + (S[:, i - 1] != T[:, j - 1]))
        prev = cur
    return prev[:, -1]


def _rod(n, rng):
    return (rng.uniform(1, 3, n + 4).cumsum().astype(np.float32),)


@case(_rod)
def rod_cutting_with_cuts(price):
    n = len(price)
    r = np.zeros(n + 1, dtype=np.float32)
    first = np.zeros(n + 1, dtype=np.int64)
    for j in range(1, n + 1):
        cand = price[:j] + r[j - 1::-1][:j]
        r[j] = cand.max()
        first[j] = np.argmax(cand) + 1
    return r, first


def _int16_graph(n, rng):
    d = rng.integers(1, 200, (n + 2, n + 2)).astype(np.int16)
    d[rng.random((n + 2, n + 2)) < 0.5] = 30000   # "infinity" sentinel: sums wrap in int16
    np.fill_diagonal(d, 0)
    return (d,)


@case(_int16_graph)
def floyd_warshall_int16_sentinel_wraps(d):
    n = d.shape[0]
    for k in range(n):
        via = d[:, k, None] + d[None, k, :]      # int16 overflow wraps as in NumPy
        np.minimum(d, via, out=d)
    return d.astype(np.int64).sum()


@case(_two_strings)
def edit_distance_antidiagonal_flat_strides(s, t):
    """Wavefront DP: each anti-diagonal i + j = d of the (m+1) x (n+1) table is a strided slice
    flat[start:stop:n] of the flattened table, filled with one vectorized write."""
    m, n = len(s), len(t)
    W = n + 1
    D = np.zeros((m + 1, W), dtype=np.int8)
    D[:, 0] = np.arange(m + 1)
    D[0, :] = np.arange(W)
    flat = D.reshape(-1)
    for d in range(2, m + n + 1):
        i0, i1 = max(1, d - n), min(m, d - 1)
        cells = slice(i0 * W + (d - i0), i1 * W + (d - i1) + 1, W - 1)
        i = np.arange(i0, i1 + 1)
        j = d - i
        sub = flat[cells.start - W - 1:cells.stop - W - 1:W - 1] + (s[i - 1] != t[j - 1])
        dele = flat[cells.start - W:cells.stop - W:W - 1] + 1
        ins = flat[cells.start - 1:cells.stop - 1:W - 1] + 1
        flat[cells] = np.minimum(np.minimum(sub, dele), ins)
    return D


# === physics and chemistry ================================================================
D2Q9_C = np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [-1, -1], [1, -1]])
D2Q9_W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
D2Q9_OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])


def _lbm(n, rng):
    ny, nx = n + 2, n + 4
    rho = 1 + 0.01 * rng.standard_normal((ny, nx))
    f = D2Q9_W[:, None, None] * rho[None]
    return (f,)


@case(_lbm)
def lbm_d2q9_stream_collide_bounce(f):
    tau = 0.6
    ny, nx = f.shape[1:]
    yy, xx = np.mgrid[0:ny, 0:nx]
    solid = (xx - nx // 3) ** 2 + (yy - ny // 2) ** 2 <= 2   # static obstacle
    for _ in range(4):
        for i in range(9):
            f[i] = np.roll(f[i], (D2Q9_C[i, 1], D2Q9_C[i, 0]), axis=(0, 1))
        bounced = f[:, solid]
        f[:, solid] = bounced[D2Q9_OPP]
        rho = f.sum(axis=0)
        ux = np.einsum("i,iyx->yx", D2Q9_C[:, 0].astype(float), f) / rho
        uy = np.einsum("i,iyx->yx", D2Q9_C[:, 1].astype(float), f) / rho
        ux[:, 0] += 0.001
        for i in range(9):
            cu = 3 * (D2Q9_C[i, 0] * ux + D2Q9_C[i, 1] * uy)
            feq = rho * D2Q9_W[i] * (1 + cu + 0.5 * cu ** 2 - 1.5 * (ux ** 2 + uy ** 2))
            f[i] += -(f[i] - feq) / tau
    return f.sum(axis=0), ux


def _md(n, rng):
    N = n + 4
    L = 6.0
    g = np.stack(np.meshgrid(*[np.arange(3)] * 3, indexing="ij"), -1).reshape(-1, 3)[:N] * 2.0 + 0.5
    pos = g + 0.05 * rng.standard_normal((N, 3))
    vel = 0.1 * rng.standard_normal((N, 3))
    return pos, vel, np.array([L])


def _lj_forces(pos, L):
    dr = pos[:, None, :] - pos[None, :, :]
    dr -= L * np.round(dr / L)
    r2 = (dr ** 2).sum(-1)
    np.fill_diagonal(r2, np.inf)
    inv6 = (1.0 / r2) ** 3
    fmag = 24 * (2 * inv6 ** 2 - inv6) / r2
    F = (fmag[:, :, None] * dr).sum(axis=1)
    U = 2 * (inv6 ** 2 - inv6).sum()
    return F, U


@case(_md)
def md_lennard_jones_minimum_image_verlet(pos, vel, box):
    L = box[0]
    dt = 0.002
    F, U = _lj_forces(pos, L)
    energies = np.zeros((5, 2))
    for step in range(5):
        vel += 0.5 * dt * F
        pos += dt * vel
        np.mod(pos, L, out=pos)
        F, U = _lj_forces(pos, L)
        vel += 0.5 * dt * F
        energies[step] = U, 0.5 * (vel ** 2).sum()
    return energies


def _potts(n, rng):
    L = 2 * (n // 2 + 2)
    q = 3
    s = rng.integers(0, q, (L, L)).astype(np.int8)
    prop = rng.integers(0, q, (4, 2, L, L)).astype(np.int8)
    u = rng.random((4, 2, L, L))
    return s, prop, u


@case(_potts)
def potts_checkerboard_metropolis(s, prop, u):
    beta = 0.9
    L = s.shape[0]
    ii, jj = np.indices((L, L))
    for sweep in range(prop.shape[0]):
        for color in (0, 1):
            mask = (ii + jj) % 2 == color
            nb = [np.roll(s, 1, 0), np.roll(s, -1, 0), np.roll(s, 1, 1), np.roll(s, -1, 1)]
            e_old = -sum((x == s).astype(np.int32) for x in nb)
            new = prop[sweep, color]
            e_new = -sum((x == new).astype(np.int32) for x in nb)
            accept = (u[sweep, color] < np.exp(-beta * (e_new - e_old))) & mask
            s[accept] = new[accept]
    counts = np.array([(s == q).sum() for q in range(3)])
    return counts, np.histogram(s, bins=3, range=(0, 3))[0]


def _springs(n, rng):
    N = n + 2
    state = np.zeros((N, 4))
    state[:, 0] = np.arange(N) * 1.1
    state[:, 1] = 0.1 * rng.standard_normal(N)
    state[:, 2:] = 0.05 * rng.standard_normal((N, 2))
    return (state,)


@case(_springs)
def spring_mass_verlet_state_views(state):
    """Springs between neighbours; forces scattered with add.at/subtract.at; position-Verlet
    steps writing through views state[:, :2] and state[:, 2:]."""
    k, rest, dt, m = 10.0, 1.0, 0.01, 1.0
    N = state.shape[0]
    i = np.arange(N - 1)
    j = i + 1
    pos, vel = state[:, :2], state[:, 2:]

    def forces():
        d = pos[j] - pos[i]
        length = np.sqrt((d ** 2).sum(axis=1, keepdims=True))
        f = k * (length - rest) * d / length
        F = np.zeros_like(pos)
        np.add.at(F, i, f)
        np.subtract.at(F, j, f)
        F[0] = 0.0  # pinned
        return F

    for _ in range(6):
        state[:, :2] += dt * state[:, 2:] + 0.5 * dt * dt * forces() / m
        F = forces()
        vel += dt * F / m
        vel[0] = 0.0
    return state[:, :2].sum(axis=0)


def _qubits(n, rng):
    nq = 3 if n < 5 else 5
    psi = rng.standard_normal(2 ** nq) + 1j * rng.standard_normal(2 ** nq)
    psi /= np.linalg.norm(psi)
    return psi, rng.uniform(0, np.pi, nq)


def _apply_1q(psi, gate, k, nq):
    v = psi.reshape(2 ** k, 2, 2 ** (nq - k - 1))
    a0 = v[:, 0, :].copy()
    a1 = v[:, 1, :].copy()
    v[:, 0, :] = gate[0, 0] * a0 + gate[0, 1] * a1
    v[:, 1, :] = gate[1, 0] * a0 + gate[1, 1] * a1


@case(_qubits)
def statevector_1q_in_place_cnot_swap(psi, thetas):
    """RY rotations written in place into psi.reshape(...) views, CNOTs by swapping slices."""
    nq = thetas.shape[0]
    H = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)
    for k in range(nq):
        _apply_1q(psi, H, k, nq)
    for _ in range(2):
        for k in range(nq):
            c, s = np.cos(thetas[k] / 2), np.sin(thetas[k] / 2)
            ry = np.array([[c, -s], [s, c]]).astype(np.complex128)
            _apply_1q(psi, ry, k, nq)
        for k in range(nq - 1):
            v = psi.reshape([2] * nq)
            idx1 = [slice(None)] * nq
            idx1[k], idx1[k + 1] = 1, 0
            idx2 = list(idx1)
            idx2[k + 1] = 1
            tmp = v[tuple(idx1)].copy()
            v[tuple(idx1)] = v[tuple(idx2)]
            v[tuple(idx2)] = tmp
    probs = np.abs(psi) ** 2
    z = np.empty(nq)
    for k in range(nq):
        p = probs.reshape(2 ** k, 2, -1).sum(axis=(0, 2))
        z[k] = p[0] - p[1]
    return z, np.linalg.norm(psi)


@case(_qubits)
def statevector_tensordot_einsum_gates(psi, thetas):
    """Gates applied by np.tensordot + np.moveaxis (1q) and np.einsum (2q CZ-like, RZZ)."""
    nq = thetas.shape[0]
    state = psi.reshape([2] * nq)
    for k in range(nq):
        rx = np.array([[np.cos(thetas[k] / 2), -1j * np.sin(thetas[k] / 2)],
                       [-1j * np.sin(thetas[k] / 2), np.cos(thetas[k] / 2)]])
        state = np.moveaxis(np.tensordot(rx, state, axes=([1], [k])), 0, k)
    for k in range(nq - 1):
        zz = np.diag(np.exp(-1j * 0.3 * np.array([1, -1, -1, 1]))).reshape(2, 2, 2, 2)
        letters = "abcdefgh"[:nq]
        out = letters.replace(letters[k], "x").replace(letters[k + 1], "y")
        spec = f"xy{letters[k]}{letters[k + 1]},{letters}->{out}"
        state = np.einsum(spec, zz, state)
    psi[...] = state.reshape(-1)
    return np.vdot(psi, psi).real, np.abs(state[(0,) * nq])


@case(_qubits)
def statevector_ellipsis_views_real_imag_writes(psi, thetas):
    """Phase and X gates written through psi.reshape(2, 2, ...)[..., 1, ...] with Ellipsis,
    complex conjugation of odd amplitudes through the strided psi.imag view."""
    nq = thetas.shape[0]
    v = psi.reshape((2,) * nq)
    for k in range(nq):
        idx1 = (slice(None),) * k + (1, Ellipsis)
        v[idx1] *= np.exp(1j * thetas[k])
    v[..., 0, :], v[..., 1, :] = v[..., 1, :].copy(), v[..., 0, :].copy()   # X on qubit nq-2
    psi.imag[1::2] *= -1.0
    psi.real[psi.real < 0] *= 0.5
    amp = v[(0,) * (nq - 1) + (Ellipsis,)]
    return np.abs(amp) ** 2, np.angle(psi[:4])


def _rho(n, rng):
    m = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    rho = m @ m.conj().T
    rho /= np.trace(rho)
    return (rho, rng.uniform(0.05, 0.3, n))


@case(_rho)
def density_matrix_amplitude_damping_partial_trace(rho, gammas):
    r = rho.copy()
    purity = np.zeros(len(gammas))
    for t, g in enumerate(gammas):
        K0 = np.array([[1, 0], [0, np.sqrt(1 - g)]], dtype=complex)
        K1 = np.array([[0, np.sqrt(g)], [0, 0]], dtype=complex)
        new = np.zeros_like(r)
        for K in (K0, K1):
            KK = np.kron(K, np.eye(2))
            new += KK @ r @ KK.conj().T
        r = new
        purity[t] = np.trace(r @ r).real
    reduced = np.einsum("ijkj->ik", r.reshape(2, 2, 2, 2))
    rho[:] = r
    return purity, reduced


def _sph(n, rng):
    N = 3 * n
    return rng.uniform(0, 1, (N, 2)), rng.uniform(-0.1, 0.1, (N, 2))


def _cubic_w(r, h):
    q = r / h
    sigma = 10 / (7 * np.pi * h * h)
    w = np.where(q < 1, 1 - 1.5 * q ** 2 + 0.75 * q ** 3,
                 np.where(q < 2, 0.25 * (2 - q) ** 3, 0.0))
    return sigma * w


@case(_sph)
def sph_density_pressure_step(pos, vel):
    h, m, k, rho0, dt = 0.3, 0.02, 5.0, 1.0, 0.005
    for _ in range(3):
        d = pos[:, None, :] - pos[None, :, :]
        r = np.sqrt((d ** 2).sum(-1))
        rho = m * _cubic_w(r, h).sum(axis=1)
        p = k * (rho - rho0)
        q = r / h
        dw = np.where(q < 1, -3 * q + 2.25 * q ** 2, np.where(q < 2, -0.75 * (2 - q) ** 2, 0.0))
        dw *= 10 / (7 * np.pi * h ** 3)
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = np.where(r[..., None] > 0, d / np.where(r > 0, r, 1)[..., None], 0.0)
        coef = -m * (p[:, None] / rho[:, None] ** 2 + p[None, :] / rho[None, :] ** 2) * dw
        acc = (coef[..., None] * unit).sum(axis=1)
        vel += dt * acc
        pos += dt * vel
        np.clip(pos, 0, 1, out=pos)
        vel[(pos <= 0) | (pos >= 1)] *= -0.5
    return rho


@case(_sph)
def mean_velocity_of_particles_inside(pos, vel):
    """Pins reductions of a traced-mask selection along axis 0 (eea8dd2: refused before)."""
    inside = (pos[:, 0] > 0.5)
    fast = vel[inside]
    return fast.mean(axis=0)


def _pend(n, rng):
    return (np.array([0.5 + 0.1 * n, 0.0, -0.3, 0.2]),)


def _double_pendulum(y):
    t1, w1, t2, w2 = y
    d = t1 - t2
    den = 2 - np.cos(2 * d)
    a1 = (-3 * np.sin(t1) - np.sin(t1 - 2 * t2) - 2 * np.sin(d) * (w2 ** 2 + w1 ** 2 * np.cos(d))) / den
    a2 = 2 * np.sin(d) * (2 * w1 ** 2 + 2 * np.cos(t1) + w2 ** 2 * np.cos(d)) / den
    return np.array([w1, a1, w2, a2])


@case(_pend)
def rk4_double_pendulum_stage_array(y):
    dt = 0.01
    steps = 10
    k = np.empty((4, 4))
    traj = np.empty((steps + 1, 4))
    traj[0] = y
    for s in range(steps):
        k[0] = _double_pendulum(y)
        k[1] = _double_pendulum(y + 0.5 * dt * k[0])
        k[2] = _double_pendulum(y + 0.5 * dt * k[1])
        k[3] = _double_pendulum(y + dt * k[2])
        y += dt / 6 * (k[0] + 2 * k[1] + 2 * k[2] + k[3])
        traj[s + 1] = y
    return traj


def _nbody(n, rng):
    N = n
    state = np.zeros((N, 6))
    state[:, :3] = rng.standard_normal((N, 3))
    state[:, 3:] = 0.1 * rng.standard_normal((N, 3))
    return state, rng.uniform(0.5, 2, N)


def _nbody_rhs(s, mass, out):
    out[:, :3] = s[:, 3:]
    d = s[None, :, :3] - s[:, None, :3]
    r2 = (d ** 2).sum(-1) + 0.01
    inv = r2 ** -1.5
    np.fill_diagonal(inv, 0.0)
    out[:, 3:] = np.einsum("ij,ijk,j->ik", inv, d, mass)


@case(_nbody)
def rk4_nbody_stages_preallocated(state, mass):
    dt = 0.01
    K = np.zeros((4,) + state.shape)
    for _ in range(4):
        _nbody_rhs(state, mass, K[0])
        _nbody_rhs(state + 0.5 * dt * K[0], mass, K[1])
        _nbody_rhs(state + 0.5 * dt * K[1], mass, K[2])
        _nbody_rhs(state + dt * K[2], mass, K[3])
        state += dt / 6 * (K[0] + 2 * K[1] + 2 * K[2] + K[3])
    com = (mass[:, None] * state[:, :3]).sum(0) / mass.sum()
    return com


def _split_step(n, rng):
    N = 16 * n
    x = np.linspace(-10, 10, N, endpoint=False)
    psi = np.exp(-(x - 1) ** 2) * np.exp(2j * x)
    return psi.astype(np.complex128), x


@case(_split_step, sizes=(3, 7))
def split_step_fourier_schrodinger(psi, x):
    """Pins np.fft.fftfreq of a traced spacing (99f5892: refused before; 3db5111: 30 of N = 112 frequencies off)."""
    dt = 0.01
    N = x.size
    dx = x[1] - x[0]
    k = 2 * np.pi * np.fft.fftfreq(N, d=dx)
    V = 0.5 * x ** 2
    half = np.exp(-0.5j * V * dt)
    kin = np.exp(-0.5j * k ** 2 * dt)
    for _ in range(10):
        psi *= half
        psi[:] = np.fft.ifft(kin * np.fft.fft(psi))
        psi *= half
    norm = (np.abs(psi) ** 2).sum() * dx
    xmean = (x * np.abs(psi) ** 2).sum() * dx
    return norm, xmean


def _boris(n, rng):
    return rng.standard_normal((n, 3)), rng.standard_normal((n, 3)), np.array([0.0, 0.0, 1.5])


@case(_boris)
def boris_pusher_cross_in_place(x, v, B):
    qm, dt = 1.0, 0.05
    E = np.array([0.1, 0.0, 0.0])
    for _ in range(8):
        v += 0.5 * qm * dt * E
        t = 0.5 * qm * dt * B
        s = 2 * t / (1 + t @ t)
        vp = v + np.cross(v, t)
        v += np.cross(vp, s)
        v += 0.5 * qm * dt * E
        x += dt * v
    return 0.5 * (v ** 2).sum(axis=1)


def _thermo(n, rng):
    return rng.standard_normal((n + 3, 3)).astype(np.float32), rng.standard_normal((n + 3, 3)).astype(np.float32)


@case(_thermo)
def berendsen_thermostat_float32(pos, vel):
    T0, tau, dt = 0.5, 0.1, np.float32(0.01)
    temps = np.zeros(6, dtype=np.float32)
    for s in range(6):
        T = (vel ** 2).sum() / (3 * len(vel))
        lam = np.sqrt(1 + dt / tau * (T0 / T - 1))
        vel *= lam
        pos += dt * vel
        pos -= np.floor(pos / 4.0) * 4.0
        temps[s] = T
    return temps


def _gillespie(n, rng):
    steps = 6 * n
    return np.array([50, 20, 0], dtype=np.int64), rng.random((steps, 2))


@case(_gillespie)
def gillespie_ssa_predrawn(x, u):
    """A + B -> C, C -> A + B, A -> 0: reaction chosen by searchsorted on cumulative
    propensities (traced index into the stoichiometry table)."""
    nu = np.array([[-1, -1, 1], [1, 1, -1], [-1, 0, 0]])
    k = np.array([0.01, 0.1, 0.02])
    t = 0.0
    times = np.zeros(len(u))
    for i in range(len(u)):
        a = k * np.array([x[0] * x[1], x[2], x[0]], dtype=np.float64)
        a0 = a.sum()
        t = t + -np.log(u[i, 0]) / a0
        r = np.searchsorted(np.cumsum(a), u[i, 1] * a0, side="right")
        x += nu[r]
        times[i] = t
    return times


def _huckel(n, rng):
    N = 2 * n
    return (rng.uniform(-0.1, 0.1, N),)


@case(_huckel)
def huckel_ring_bond_orders(alpha_shift):
    N = alpha_shift.size
    H = np.zeros((N, N))
    i = np.arange(N)
    H[i, (i + 1) % N] = -1.0
    H[(i + 1) % N, i] = -1.0
    H[i, i] = alpha_shift
    e, C = np.linalg.eigh(H)
    occ = np.zeros(N)
    occ[:N // 2] = 2.0
    P = np.einsum("k,ik,jk->ij", occ, C, C)
    bonds = P[i, (i + 1) % N]
    return e.sum() * 0 + (occ * e).sum(), np.abs(bonds)


def _xy(n, rng):
    L = 2 * (n // 2 + 2)
    return (rng.uniform(0, 2 * np.pi, (L, L)).astype(np.float32),
            rng.uniform(-0.5, 0.5, (3, 2, L, L)).astype(np.float32),
            rng.random((3, 2, L, L)).astype(np.float32))


@case(_xy)
def xy_model_metropolis_float32_mod_out(theta, dtheta, u):
    beta = np.float32(1.2)
    L = theta.shape[0]
    checker = (np.add.outer(np.arange(L), np.arange(L)) % 2).astype(bool)
    for sweep in range(dtheta.shape[0]):
        for color in range(2):
            mask = checker == bool(color)
            nbrs = [np.roll(theta, sh, ax) for sh in (1, -1) for ax in (0, 1)]
            new = theta + dtheta[sweep, color]
            dE = np.zeros_like(theta)
            for nb in nbrs:
                dE -= np.cos(new - nb) - np.cos(theta - nb)
            acc = mask & (u[sweep, color] < np.exp(-beta * dE))
            np.copyto(theta, new, where=acc)
            np.mod(theta, np.float32(2 * np.pi), out=theta)
    return np.cos(theta).mean(), np.sin(theta).mean()


def _poisson(n, rng):
    N = 2 * n + 3
    rho = np.zeros((N, N))
    rho[N // 2, N // 2] = 1.0
    rho[1, 2] = -0.5
    return np.zeros((N, N)), rho


@case(_poisson, sizes=(3, 7))
def poisson_red_black_sor_strided(phi, rho):
    """Red-black SOR with the red and black points as strided views of the interior.

    Pins the lane splitting of the red or black points (46912f2): on the 17 x 17 grid (n = 7) ten sweeps
    compiled in 62 s."""
    w = 1.5
    h2 = 1.0
    for _ in range(10):
        for (oi, oj) in ((1, 1), (2, 2), (1, 2), (2, 1)):
            c = phi[oi:-1:2, oj:-1:2]
            up = phi[oi - 1:-2:2, oj:-1:2]
            dn = phi[oi + 1::2, oj:-1:2][:c.shape[0]]
            lf = phi[oi:-1:2, oj - 1:-2:2]
            rt = phi[oi:-1:2, oj + 1::2][:, :c.shape[1]]
            gs = 0.25 * (up + dn[:, :c.shape[1]] + lf + rt[:c.shape[0]] + h2 * rho[oi:-1:2, oj:-1:2])
            c += w * (gs - c)
    return phi[1:-1, 1:-1].sum()


def _fcc(n, rng):
    return (rng.standard_normal((n + 5, 3)) * 0.05,)


@case(_fcc)
def fcc_lattice_rdf_histogram(jitter):
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    cells = np.stack(np.meshgrid(np.arange(2), np.arange(2), np.arange(2), indexing="ij"), -1).reshape(-1, 1, 3)
    pos = (cells + basis[None]).reshape(-1, 3)[:jitter.shape[0]] + jitter
    L = 2.0
    i, j = np.triu_indices(len(pos), 1)
    d = pos[i] - pos[j]
    d -= L * np.round(d / L)
    r = np.sqrt((d * d).sum(1))
    hist, edges = np.histogram(r, bins=10, range=(0.0, 1.5))
    shell = 4 / 3 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    g = hist / shell / (len(pos) ** 2 / L ** 3) * 2
    return hist, g


def _kinetics(n, rng):
    return (np.array([1.0, 0.0, 0.0, 0.2 * n]),)


@case(_kinetics)
def mass_action_kinetics_rk4_stage_rows(c):
    """A + B <-> C, C -> D: rates from a stoichiometry matrix, RK4 with stages in rows."""
    S = np.array([[-1, 1, 0], [-1, 1, 0], [1, -1, -1], [0, 0, 1]], dtype=np.float64)
    kf = np.array([2.0, 0.5, 0.3])
    c[1] = 0.8

    def rates(y):
        return S @ (kf * np.array([y[0] * y[1], y[2], y[2]]))

    dt = 0.05
    st = np.zeros((4, c.size))
    hist = np.zeros((20, c.size))
    for t in range(20):
        st[0] = rates(c)
        st[1] = rates(c + dt / 2 * st[0])
        st[2] = rates(c + dt / 2 * st[1])
        st[3] = rates(c + dt * st[2])
        c += dt * (st[0] + 2 * st[1] + 2 * st[2] + st[3]) / 6
        hist[t] = c
    return hist, c.sum()


def _chain1d(n, rng):
    N = n + 3
    return rng.standard_normal(N) * 0.1, np.zeros(N)


@case(_chain1d)
def harmonic_chain_normal_modes(u0, v0):
    N = u0.size
    K = 2 * np.eye(N) - np.eye(N, k=1) - np.eye(N, k=-1)
    w2, modes = np.linalg.eigh(K)
    w = np.sqrt(w2)
    a = modes.T @ u0
    b = modes.T @ v0
    traj = np.empty((5, N))
    for t in range(5):
        traj[t] = modes @ (a * np.cos(w * t) + b * np.sin(w * t) / w)
    u0[:] = traj[-1]
    return traj


# === neural-network layers and training by hand ===========================================
def _bn_back_inputs(n, rng):
    x = rng.standard_normal((n * 3, 5))
    dout = rng.standard_normal((n * 3, 5))
    gamma = rng.uniform(0.5, 1.5, 5)
    return x, dout, gamma


@case(_bn_back_inputs)
def batchnorm_backward(x, dout, gamma, eps=1e-5):
    N = x.shape[0]
    mu = x.mean(axis=0)
    xc = x - mu
    var = (xc ** 2).mean(axis=0)
    std = np.sqrt(var + eps)
    xhat = xc / std
    dgamma = (dout * xhat).sum(axis=0)
    dbeta = dout.sum(axis=0)
    dxhat = dout * gamma
    dx = (1.0 / N) / std * (N * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0))
    return dx, dgamma, dbeta


def _adam_inputs(n, rng):
    params = {"W": rng.standard_normal((n, 3)), "b": rng.standard_normal(3)}
    grads = {"W": rng.standard_normal((n, 3)), "b": rng.standard_normal(3)}
    m = {"W": np.zeros((n, 3)), "b": np.zeros(3)}
    v = {"W": np.zeros((n, 3)), "b": np.zeros(3)}
    return params, grads, m, v


@case(_adam_inputs)
def adam_steps_pytree(params, grads, m, v, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    for t in range(1, 4):
        for k in params:
            g = grads[k] * (1.0 + 0.1 * t)
            m[k] *= b1
            m[k] += (1 - b1) * g
            v[k] *= b2
            v[k] += (1 - b2) * g * g
            mhat = m[k] / (1 - b1 ** t)
            vhat = v[k] / (1 - b2 ** t)
            params[k] -= lr * mhat / (np.sqrt(vhat) + eps)
    return np.sqrt(sum(np.sum(m[k] ** 2) for k in m))


def _rms_inputs(n, rng):
    ps = [rng.standard_normal((n, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    gs = [rng.standard_normal((n, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    cache = [np.zeros((n, 4), np.float32), np.zeros(4, np.float32)]
    return ps, gs, cache


@case(_rms_inputs)
def rmsprop_list_params(ps, gs, cache, lr=0.01, decay=0.9, eps=1e-8):
    for p, g, c in zip(ps, gs, cache):
        c *= decay
        c += (1 - decay) * g ** 2
        p -= lr * g / (np.sqrt(c) + eps)
    return np.array([np.abs(p).max() for p in ps])


def _sgd_inputs(n, rng):
    W = rng.standard_normal((n, n + 1))
    vel = np.zeros_like(W)
    grads = rng.standard_normal((3, n, n + 1))
    return W, vel, grads


@case(_sgd_inputs)
def sgd_momentum_with_weight_decay(W, vel, grads, lr=0.1, mu=0.9, wd=1e-4):
    for step in range(grads.shape[0]):
        g = grads[step] + wd * W
        vel *= mu
        vel -= lr * g
        W += vel
    return W.sum()


def _clip_inputs(n, rng):
    return [rng.standard_normal((n, 5)) * 3, rng.standard_normal(5) * 10, rng.standard_normal((2, n)) * 0.1],


@case(_clip_inputs)
def clip_grad_global_norm(grads, max_norm=5.0):
    total = np.sqrt(sum(np.sum(g * g) for g in grads))
    scale = np.minimum(1.0, max_norm / (total + 1e-6))
    for g in grads:
        g *= scale
    return total


def _attn_inputs(n, rng):
    B, T, D = 2, n, 8
    q = rng.standard_normal((B, T, D)).astype(np.float32)
    k = rng.standard_normal((B, T, D)).astype(np.float32)
    v = rng.standard_normal((B, T, D)).astype(np.float32)
    lengths = np.array([T, max(1, T - 2)])
    return q, k, v, lengths


@case(_attn_inputs)
def attention_causal_padding_mask(q, k, v, lengths):
    B, T, D = q.shape
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(D).astype(np.float32)
    causal = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores[:, causal] = -np.inf
    pad = np.arange(T)[None, :] >= lengths[:, None]          # (B, T) traced
    scores = np.where(pad[:, None, :], -np.inf, scores)
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores @ v


@case(_attn_inputs)
def attention_mask_assign_boolean(q, k, v, lengths):
    B, T, D = q.shape
    scores = np.einsum("btd,bsd->bts", q, k) * np.float32(1 / np.sqrt(D))
    mask = np.arange(T)[None, None, :] > np.arange(T)[None, :, None]
    mask = mask | (np.arange(T)[None, None, :] >= lengths[:, None, None])
    scores[mask] = -1e9
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return np.einsum("bts,bsd->btd", w, v), w.argmax(axis=-1)


def _conv1d_inputs(n, rng):
    x = rng.standard_normal((2, 3, n + 6))      # (batch, in_ch, length)
    w = rng.standard_normal((4, 3, 3))          # (out_ch, in_ch, kernel)
    b = rng.standard_normal(4)
    return x, w, b


@case(_conv1d_inputs)
def conv1d_sliding_window_einsum(x, w, b):
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[-1], axis=-1)  # (B, C, L', K)
    y = np.einsum("bclk,ock->bol", win, w)
    y += b[None, :, None]
    np.maximum(y, 0, out=y)
    return y


def _conv2d_inputs(n, rng):
    x = rng.standard_normal((1, 2, n + 4, n + 5)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    return x, w


@case(_conv2d_inputs)
def conv2d_same_padding_stride2(x, w):
    kh, kw = w.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::2, ::2]
    return np.einsum("bchwij,ocij->bohw", win, w)


@case(_conv2d_inputs)
def conv2d_loop_over_kernel_offsets(x, w):
    B, C, H, W = x.shape
    co, _, kh, kw = w.shape
    out = np.zeros((B, co, H - kh + 1, W - kw + 1), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + H - kh + 1, j:j + W - kw + 1]
            out += np.tensordot(w[:, :, i, j], patch, axes=([1], [1])).transpose(1, 0, 2, 3)
    return out


def _pool_inputs(n, rng):
    return rng.standard_normal((2, 3, 2 * n, 2 * n + 2)).astype(np.float32),


@case(_pool_inputs)
def maxpool_avgpool_reshape(x):
    B, C, H, W = x.shape
    r = x.reshape(B, C, H // 2, 2, W // 2, 2)
    mx = r.max(axis=(3, 5))
    av = r.mean(axis=(3, 5))
    # argmax location within each window, for the backward pass
    flat = r.transpose(0, 1, 2, 4, 3, 5).reshape(B, C, H // 2, W // 2, 4)
    arg = flat.argmax(axis=-1)
    return mx, av, arg


@case(_pool_inputs)
def maxpool_backward_scatter(x):
    B, C, H, W = x.shape
    r = x.reshape(B, C, H // 2, 2, W // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(B, C, H // 2, W // 2, 4)
    arg = r.argmax(axis=-1)
    dout = np.ones((B, C, H // 2, W // 2), x.dtype) * 0.5
    dx = np.zeros_like(x)
    dx6 = dx.reshape(B, C, H // 2, 2, W // 2, 2)
    di, dj = np.divmod(arg, 2)
    for a in range(2):
        for b in range(2):
            dx6[:, :, :, a, :, b] = np.where((di == a) & (dj == b), dout, 0)
    return dx


def _embbag_inputs(n, rng):
    table = rng.standard_normal((10, 4)).astype(np.float32)
    ids = rng.integers(0, 10, n * 3)
    bag = np.repeat(np.arange(n), 3)
    return table, ids, bag


@case(_embbag_inputs)
def embedding_bag_sum_and_grad(table, ids, bag):
    nbags = len(bag) // 3
    out = np.zeros((nbags, table.shape[1]), table.dtype)
    np.add.at(out, bag, table[ids])
    counts = np.zeros(nbags, np.int64)
    np.add.at(counts, bag, 1)
    mean = out / counts[:, None]
    # gradient of sum(mean) w.r.t. the table rows
    gtable = np.zeros_like(table)
    np.add.at(gtable, ids, (1.0 / counts[bag])[:, None].astype(np.float32) * np.ones((1, table.shape[1]), np.float32))
    table -= 0.1 * gtable
    return out, mean


def _ce_inputs(n, rng):
    logits = rng.standard_normal((n * 2, 5)) * 3
    labels = rng.integers(0, 5, n * 2)
    return logits, labels


@case(_ce_inputs)
def cross_entropy_and_grad(logits, labels):
    N = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(N), labels].mean()
    grad = np.exp(logp)
    grad[np.arange(N), labels] -= 1
    grad /= N
    return loss, grad


@case(_ce_inputs)
def cross_entropy_label_smoothing(logits, labels, eps=0.1):
    N, K = logits.shape
    target = np.full((N, K), eps / K)
    target[np.arange(N), labels] += 1 - eps
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = -(target * logp).sum(axis=1).mean()
    grad = (np.exp(logp) - target) / N
    return loss, grad


def _dropout_inputs(n, rng):
    x = rng.standard_normal((n, 6)).astype(np.float32)
    keep = rng.random((n, 6)) > 0.3
    return x, keep


@case(_dropout_inputs)
def dropout_given_mask_inplace(x, keep, p=0.3):
    x[~keep] = 0
    x *= np.float32(1 / (1 - p))
    dx = np.ones_like(x)
    dx[~keep] = 0
    dx /= (1 - p)
    return x.sum(axis=1), dx


def _mixed_inputs(n, rng):
    master = rng.standard_normal((n, 4)).astype(np.float32)
    x = rng.standard_normal((3, n)).astype(np.float16)
    y = rng.standard_normal((3, 4)).astype(np.float16)
    return master, x, y


@case(_mixed_inputs)
def mixed_precision_fp16_step(master, x, y, lr=0.05, loss_scale=128.0):
    for _ in range(2):
        w16 = master.astype(np.float16)
        pred = x @ w16                              # float16
        err = pred - y
        g16 = (x.T @ (err * np.float16(loss_scale))) / np.float16(x.shape[0])
        g = g16.astype(np.float32) / loss_scale
        if_finite = np.isfinite(g).all()
        master -= np.where(if_finite, lr * g, 0).astype(np.float32)
    return master.astype(np.float16), (err.astype(np.float32) ** 2).mean()


def _mlp_inputs(n, rng):
    X = rng.standard_normal((n * 2, 3))
    y = rng.standard_normal((n * 2, 1))
    W1 = rng.standard_normal((3, 5)) * 0.5
    b1 = np.zeros(5)
    W2 = rng.standard_normal((5, 1)) * 0.5
    b2 = np.zeros(1)
    return X, y, W1, b1, W2, b2


@case(_mlp_inputs)
def mlp_training_loop_manual_backprop(X, y, W1, b1, W2, b2, lr=0.05):
    losses = np.empty(5)
    for it in range(5):
        h = X @ W1 + b1
        a = np.tanh(h)
        out = a @ W2 + b2
        d = out - y
        losses[it] = (d ** 2).mean()
        dout = 2 * d / len(X)
        dW2 = a.T @ dout
        db2 = dout.sum(axis=0)
        da = dout @ W2.T
        dh = da * (1 - a ** 2)
        dW1 = X.T @ dh
        db1 = dh.sum(axis=0)
        for p, g in ((W1, dW1), (b1, db1), (W2, dW2), (b2, db2)):
            p -= lr * g
    return losses


def _gru_inputs(n, rng):
    x = rng.standard_normal((5, n, 3)).astype(np.float32)
    Wz, Wr, Wh = (rng.standard_normal((3 + 4, 4)).astype(np.float32) * 0.4 for _ in range(3))
    return x, Wz, Wr, Wh


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


@case(_gru_inputs)
def gru_unrolled(x, Wz, Wr, Wh):
    T, B, _ = x.shape
    h = np.zeros((B, 4), np.float32)
    hs = np.empty((T, B, 4), np.float32)
    xh = np.empty((B, 7), np.float32)
    for t in range(T):
        xh[:, :3] = x[t]
        xh[:, 3:] = h
        z = _sigmoid(xh @ Wz)
        r = _sigmoid(xh @ Wr)
        xh[:, 3:] *= r
        hh = np.tanh(xh @ Wh)
        h = (1 - z) * h + z * hh
        hs[t] = h
    return hs


def _lrsched_inputs(n, rng):
    return rng.standard_normal(n * 2), rng.standard_normal((6, n * 2))


@case(_lrsched_inputs)
def cosine_lr_schedule_with_warmup_and_ema(w, grads, base=0.1, warm=2):
    ema = w.copy()
    T = grads.shape[0]
    lrs = np.empty(T)
    for t in range(T):
        lr = base * (t + 1) / warm if t < warm else 0.5 * base * (1 + np.cos(np.pi * (t - warm) / (T - warm)))
        lrs[t] = lr
        w -= lr * grads[t]
        ema *= 0.9
        ema += 0.1 * w
    return lrs, ema


def _topk_inputs(n, rng):
    return rng.standard_normal((n, 12)), rng.integers(0, 12, n)


@case(_topk_inputs)
def topk_accuracy_and_confusion(logits, labels):
    top3 = np.argsort(-logits, axis=1, kind="stable")[:, :3]
    hit1 = (top3[:, 0] == labels).mean()
    hit3 = (top3 == labels[:, None]).any(axis=1).mean()
    conf = np.zeros((12, 12), np.int64)
    np.add.at(conf, (labels, top3[:, 0]), 1)
    return hit1, hit3, conf


def _ln_fp16_inputs(n, rng):
    return rng.standard_normal((n, 16)).astype(np.float16) * 4, rng.standard_normal(16).astype(np.float16)


@case(_ln_fp16_inputs)
def rmsnorm_fp16_accumulate_fp32(x, g, eps=1e-6):
    x32 = x.astype(np.float32)
    ms = np.mean(x32 * x32, axis=-1, keepdims=True)
    y = (x32 / np.sqrt(ms + eps)).astype(np.float16) * g
    x[...] = y          # write back in place, float16
    return ms.ravel()


def _im2col_inputs(n, rng):
    x = rng.standard_normal((2, 2, n + 2, n + 3))
    w = rng.standard_normal((3, 2, 3, 3))
    dout = rng.standard_normal((2, 3, n, n + 1))
    return x, w, dout


def _im2col_indices(C, H, W, kh, kw):
    i0 = np.repeat(np.arange(kh), kw)
    i0 = np.tile(i0, C)
    i1 = np.repeat(np.arange(H - kh + 1), W - kw + 1)
    j0 = np.tile(np.arange(kw), kh * C)
    j1 = np.tile(np.arange(W - kw + 1), H - kh + 1)
    i = i0.reshape(-1, 1) + i1.reshape(1, -1)
    j = j0.reshape(-1, 1) + j1.reshape(1, -1)
    k = np.repeat(np.arange(C), kh * kw).reshape(-1, 1)
    return k, i, j


@case(_im2col_inputs)
def conv_im2col_forward_col2im_backward(x, w, dout):
    B, C, H, W = x.shape
    co, _, kh, kw = w.shape
    k, i, j = _im2col_indices(C, H, W, kh, kw)
    cols = x[:, k, i, j]                           # (B, C*kh*kw, L)
    out = np.einsum("ok,bkl->bol", w.reshape(co, -1), cols).reshape(B, co, H - kh + 1, W - kw + 1)
    dcols = np.einsum("ok,bol->bkl", w.reshape(co, -1), dout.reshape(B, co, -1))
    dx = np.zeros_like(x)
    np.add.at(dx, (slice(None), k, i, j), dcols)   # col2im
    dw = np.einsum("bol,bkl->ok", dout.reshape(B, co, -1), cols).reshape(w.shape)
    return out, dx, dw


def _rope_inputs(n, rng):
    x = rng.standard_normal((2, n + 1, 8)).astype(np.float32)
    return x,


@case(_rope_inputs)
def rotary_embedding_in_place_tuple_assign(x, base=10000.0):
    T, D = x.shape[1], x.shape[2]
    inv = 1.0 / base ** (np.arange(0, D, 2, dtype=np.float32) / D)
    ang = np.arange(T, dtype=np.float32)[:, None] * inv[None, :]
    c, s = np.cos(ang), np.sin(ang)
    x1 = x[..., 0::2]
    x2 = x[..., 1::2]
    x[..., 0::2], x[..., 1::2] = x1 * c - x2 * s, x1 * s + x2 * c
    return np.linalg.norm(x, axis=-1)


def _kv_inputs(n, rng):
    cache_k = np.zeros((2, 12, 4), np.float16)
    cache_v = np.zeros((2, 12, 4), np.float16)
    new_k = rng.standard_normal((2, n // 2 + 1, 4)).astype(np.float16)
    new_v = rng.standard_normal((2, n // 2 + 1, 4)).astype(np.float16)
    q = rng.standard_normal((2, 1, 4)).astype(np.float16)
    return cache_k, cache_v, new_k, new_v, q


@case(_kv_inputs)
def kv_cache_append_and_decode_step(cache_k, cache_v, new_k, new_v, q, pos=3):
    T = new_k.shape[1]
    cache_k[:, pos:pos + T] = new_k
    cache_v[:, pos:pos + T] = new_v
    L = pos + T
    s = (q.astype(np.float32) @ cache_k[:, :L].astype(np.float32).transpose(0, 2, 1)) / 2.0
    s -= s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    out = (p @ cache_v[:, :L].astype(np.float32)).astype(np.float16)
    return out


def _emb_pad_inputs(n, rng):
    E = rng.standard_normal((8, 3)).astype(np.float32)
    ids = rng.integers(0, 8, (n, 5))
    ids[:, -2:] = 0          # padding
    dout = rng.standard_normal((n, 5, 3)).astype(np.float32)
    return E, ids, dout


@case(_emb_pad_inputs)
def embedding_padding_idx_sparse_grad(E, ids, dout, padding_idx=0, lr=np.float32(0.5)):  # noqa: B008
    out = E[ids]
    out[ids == padding_idx] = 0
    gE = np.zeros_like(E)
    np.add.at(gE, ids.ravel(), dout.reshape(-1, E.shape[1]))
    gE[padding_idx] = 0
    touched = np.zeros(E.shape[0], bool)
    touched[ids.ravel()] = True
    E[touched] -= lr * gE[touched]
    return out, touched


def _qmm_inputs(n, rng):
    a = rng.integers(0, 256, (n, 8)).astype(np.uint8)
    b = rng.integers(-128, 128, (8, 5)).astype(np.int8)
    return a, b


@case(_qmm_inputs)
def int8_requantized_matmul(a, b, za=128, sa=0.02, sb=0.01, so=0.05, zo=3):
    acc = (a.astype(np.int32) - za) @ b.astype(np.int32)
    m = sa * sb / so
    y = np.rint(acc * m) + zo
    np.clip(y, -128, 127, out=y)
    q = y.astype(np.int8)
    relu = np.maximum(q, np.int8(zo))
    return q, relu, acc.dtype.itemsize


def _topp_inputs(n, rng):
    return (rng.standard_normal((n, 10)) * 2).astype(np.float32), rng.random((n, 1)).astype(np.float32)


@case(_topp_inputs)
def top_k_top_p_filtering(logits, u, k=4, p=0.8):
    kth = np.sort(logits, axis=-1)[:, -k][:, None]
    logits = logits.copy()
    logits[logits < kth] = -np.inf
    order = np.argsort(-logits, axis=-1, kind="stable")
    srt = np.take_along_axis(logits, order, axis=-1)
    probs = np.exp(srt - srt[:, :1])
    probs /= probs.sum(-1, keepdims=True)
    cum = np.cumsum(probs, axis=-1)
    remove = cum - probs > p
    srt[remove] = -np.inf
    np.put_along_axis(logits, order, srt, axis=-1)
    pr = np.exp(logits - logits.max(-1, keepdims=True))
    pr /= pr.sum(-1, keepdims=True)
    choice = (np.cumsum(pr, axis=-1) < u).sum(axis=-1)     # inverse-CDF sampling with a given uniform
    return logits, np.minimum(choice, logits.shape[1] - 1)


def _focal_inputs(n, rng):
    return rng.standard_normal((n * 3, 4)), rng.integers(0, 4, n * 3)


@case(_focal_inputs)
def focal_loss_one_hot_eye(logits, y, gamma=2.0, alpha=0.25):
    onehot = np.eye(logits.shape[1])[y]
    p = 1 / (1 + np.exp(-logits))
    pt = np.where(onehot == 1, p, 1 - p)
    at = np.where(onehot == 1, alpha, 1 - alpha)
    loss = -at * (1 - pt) ** gamma * np.log(np.clip(pt, 1e-12, 1))
    return loss.sum(axis=1), loss.mean()


def _adamw_inputs(n, rng):
    params = {"conv.w": rng.standard_normal((n, 3)).astype(np.float32),
              "conv.b": rng.standard_normal(3).astype(np.float32),
              "norm.g": np.ones(3, np.float32)}
    grads = {k: rng.standard_normal(v.shape).astype(np.float32) for k, v in params.items()}
    state = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    return params, grads, state


@case(_adamw_inputs)
def adamw_no_decay_on_bias_and_norm(params, grads, state, lr=1e-3, wd=0.01, b1=0.9, b2=0.999):
    for t in (1, 2):
        for name, p in params.items():
            m, v = state[name]
            g = grads[name]
            m[:] = b1 * m + (1 - b1) * g
            v[:] = b2 * v + (1 - b2) * g * g
            upd = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + 1e-8)
            if not (name.endswith(".b") or name.startswith("norm")):
                upd = upd + wd * p
            p -= (lr * upd).astype(p.dtype)
    return {k: v.copy() for k, v in params.items()}


def _microbatch_inputs(n, rng):
    X = rng.standard_normal((4 * n, 3))
    y = rng.standard_normal(4 * n)
    w = np.zeros(3)
    return X, y, w


@case(_microbatch_inputs)
def gradient_accumulation_microbatches(X, y, w, lr=0.1, micro=4):
    acc = np.zeros_like(w)
    for _ in range(2):
        acc[...] = 0
        for mb in range(X.shape[0] // micro):
            xb = X[mb * micro:(mb + 1) * micro]
            yb = y[mb * micro:(mb + 1) * micro]
            r = (xb * w).sum(axis=1) - yb
            acc += (xb * r[:, None]).sum(axis=0)
        w -= lr * acc / X.shape[0]
    return w.copy(), acc


# === graphics and geometry ================================================================
def _raster_inputs(n, rng):
    tri = rng.uniform(0, 4 * n, (3, 2))
    canvas = np.zeros((4 * n, 4 * n, 3), np.float32)
    color = rng.uniform(0, 1, (3, 3)).astype(np.float32)
    return tri, canvas, color


@case(_raster_inputs)
def rasterize_triangle_barycentric(tri, canvas, color):
    H, W = canvas.shape[:2]
    ys, xs = np.mgrid[0:H, 0:W]
    px = xs + 0.5
    py = ys + 0.5
    (x0, y0), (x1, y1), (x2, y2) = tri
    area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
    w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area
    w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area
    w2 = 1 - w0 - w1
    inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
    rgb = (w0[..., None] * color[0] + w1[..., None] * color[1] + w2[..., None] * color[2]).astype(np.float32)
    canvas[inside] = rgb[inside]
    return inside.sum()


def _zbuf_inputs(n, rng):
    H = W = 2 * n
    m = n * 8
    px = rng.integers(0, W, m)
    py = rng.integers(0, H, m)
    z = rng.uniform(0.1, 10, m).astype(np.float32)
    zbuf = np.full((H, W), np.inf, np.float32)
    return zbuf, py, px, z


@case(_zbuf_inputs)
def zbuffer_minimum_at(zbuf, py, px, z):
    np.minimum.at(zbuf, (py, px), z)
    visible = z <= zbuf[py, px]
    depth_img = np.where(np.isinf(zbuf), 0, 1 / zbuf)
    return visible, depth_img.astype(np.float32)


def _rays_inputs(n, rng):
    o = rng.uniform(-1, 1, (n * 4, 3))
    d = rng.standard_normal((n * 4, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    centers = rng.uniform(-2, 2, (3, 3))
    radii = rng.uniform(0.3, 1.0, 3)
    return o, d, centers, radii


@case(_rays_inputs)
def ray_sphere_nearest_hit(o, d, centers, radii):
    tbest = np.full(o.shape[0], np.inf)
    ibest = np.full(o.shape[0], -1)
    for s in range(centers.shape[0]):
        oc = o - centers[s]
        b = np.einsum("ij,ij->i", oc, d)
        c = np.einsum("ij,ij->i", oc, oc) - radii[s] ** 2
        disc = b * b - c
        hit = disc >= 0
        sq = np.sqrt(np.where(hit, disc, 0))
        t = -b - sq
        t = np.where(t > 1e-6, t, -b + sq)
        ok = hit & (t > 1e-6) & (t < tbest)
        tbest[ok] = t[ok]
        ibest[ok] = s
    hitany = ibest >= 0
    p = o + np.where(hitany, tbest, 0)[:, None] * d
    normal = (p - centers[ibest]) / radii[ibest][:, None]
    normal[~hitany] = 0
    return tbest, ibest, normal


@case(_rays_inputs)
def ray_box_slab_intersection(o, d, centers, radii):
    lo = centers.min(axis=0) - 0.5
    hi = centers.max(axis=0) + 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
    t1 = (lo - o) * inv
    t2 = (hi - o) * inv
    tmin = np.minimum(t1, t2).max(axis=1)
    tmax = np.maximum(t1, t2).min(axis=1)
    hit = (tmax >= np.maximum(tmin, 0))
    tenter = np.where(hit, np.maximum(tmin, 0), np.nan)
    return hit, tenter


def _poly_inputs(n, rng):
    k = n + 3
    ang = np.sort(rng.uniform(0, 2 * np.pi, (5, k)), axis=1)
    r = rng.uniform(1, 2, (5, k))
    return np.stack([r * np.cos(ang), r * np.sin(ang)], axis=-1),


@case(_poly_inputs)
def shoelace_areas_centroids(polys):
    x = polys[..., 0]
    y = polys[..., 1]
    xn = np.roll(x, -1, axis=1)
    yn = np.roll(y, -1, axis=1)
    cross = x * yn - xn * y
    area = 0.5 * cross.sum(axis=1)
    cx = ((x + xn) * cross).sum(axis=1) / (6 * area)
    cy = ((y + yn) * cross).sum(axis=1) / (6 * area)
    bbox = np.concatenate([polys.min(axis=1), polys.max(axis=1)], axis=1)
    return np.abs(area), np.stack([cx, cy], 1), bbox


def _pts_group_inputs(n, rng):
    pts = rng.standard_normal((n * 5, 2)).astype(np.float32)
    grp = rng.integers(0, 4, n * 5)
    return pts, grp


@case(_pts_group_inputs)
def grouped_bounding_boxes_at(pts, grp):
    lo = np.full((4, 2), np.inf, np.float32)
    hi = np.full((4, 2), -np.inf, np.float32)
    np.minimum.at(lo, grp, pts)
    np.maximum.at(hi, grp, pts)
    empty = ~np.isfinite(lo[:, 0])
    lo[empty] = 0
    hi[empty] = 0
    return np.concatenate([lo, hi], axis=1)


def _comp_inputs(n, rng):
    canvas = rng.uniform(0, 1, (3 * n, 3 * n, 4)).astype(np.float32)
    sprite = rng.uniform(0, 1, (n, n + 1, 4)).astype(np.float32)
    return canvas, sprite


@case(_comp_inputs)
def premultiplied_alpha_over_into_canvas(canvas, sprite, y=2, x=1):
    h, w = sprite.shape[:2]
    src = sprite.copy()
    src[..., :3] *= src[..., 3:]          # premultiply
    dst = canvas[y:y + h, x:x + w]
    dst[..., :3] *= dst[..., 3:]
    dst *= (1 - src[..., 3:])
    dst += src
    a = dst[..., 3:]
    np.divide(dst[..., :3], a, out=dst[..., :3], where=a > 0)   # un-premultiply in place
    return canvas.mean(axis=(0, 1))


def _tex_inputs(n, rng):
    tex = rng.uniform(0, 1, (n + 2, n + 3, 3))
    uv = rng.uniform(-0.1, 1.1, (n * 4, 2))
    return tex, uv


@case(_tex_inputs)
def bilinear_texture_sample_clamp(tex, uv):
    H, W = tex.shape[:2]
    x = np.clip(uv[:, 0] * (W - 1), 0, W - 1)
    y = np.clip(uv[:, 1] * (H - 1), 0, H - 1)
    x0 = np.floor(x).astype(np.int64)
    y0 = np.floor(y).astype(np.int64)
    x1 = np.minimum(x0 + 1, W - 1)
    y1 = np.minimum(y0 + 1, H - 1)
    fx = (x - x0)[:, None]
    fy = (y - y0)[:, None]
    c = (tex[y0, x0] * (1 - fx) * (1 - fy) + tex[y0, x1] * fx * (1 - fy)
         + tex[y1, x0] * (1 - fx) * fy + tex[y1, x1] * fx * fy)
    return c


def _xf_inputs(n, rng):
    pts = rng.standard_normal((n * 3, 3))
    ang = rng.uniform(0, np.pi, 3)
    t = rng.standard_normal(3)
    return pts, ang, t


def _rot(axis, a):
    c, s = np.cos(a), np.sin(a)
    R = np.eye(4)
    i, j = [(1, 2), (0, 2), (0, 1)][axis]
    R[i, i] = c
    R[j, j] = c
    R[i, j] = -s
    R[j, i] = s
    return R


@case(_xf_inputs)
def homogeneous_transform_chain(pts, ang, t):
    M = np.eye(4)
    M[:3, 3] = t
    for ax in range(3):
        M = M @ _rot(ax, ang[ax])
    P = np.ones((pts.shape[0], 4))
    P[:, :3] = pts
    Q = P @ M.T
    Q[:, :3] /= Q[:, 3:]
    Minv = np.linalg.inv(M)
    back = (np.c_[Q[:, :3], np.ones(len(Q))] @ Minv.T)[:, :3]
    # project: perspective divide by z with a near clip
    z = np.maximum(Q[:, 2], 0.1)
    uv = Q[:, :2] / z[:, None]
    return Q, back, uv


def _quat_inputs(n, rng):
    q0 = rng.standard_normal((n * 2, 4))
    q1 = rng.standard_normal((n * 2, 4))
    t = rng.uniform(0, 1, n * 2)
    return q0, q1, t


@case(_quat_inputs)
def quaternion_normalize_slerp(q0, q1, t):
    """Normalizes rows of 4 with np.linalg.norm(.., axis=1): pins NumPy's sums along an axis (d677e9e;
    bit for bit with fma=False)."""
    q0 /= np.linalg.norm(q0, axis=1, keepdims=True)
    q1 /= np.linalg.norm(q1, axis=1, keepdims=True)
    dot = np.sum(q0 * q1, axis=1)
    neg = dot < 0
    q1[neg] *= -1
    dot = np.abs(dot)
    np.clip(dot, -1, 1, out=dot)
    theta = np.arccos(dot)
    s = np.sin(theta)
    close = dot > 0.9995
    safe = np.where(close, 1.0, s)
    w0 = np.where(close, 1 - t, np.sin((1 - t) * theta) / safe)
    w1 = np.where(close, t, np.sin(t * theta) / safe)
    q = w0[:, None] * q0 + w1[:, None] * q1
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q


def _mesh_inputs(n, rng):
    V = rng.standard_normal((n * 3, 3))
    F = np.stack([rng.permutation(n * 3)[:3] for _ in range(n * 4)])
    return V, F


@case(_mesh_inputs)
def vertex_normals_area_weighted(V, F):
    v0, v1, v2 = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    fn = np.cross(v1 - v0, v2 - v0)
    vn = np.zeros_like(V)
    for k in range(3):
        np.add.at(vn, F[:, k], fn)
    norm = np.linalg.norm(vn, axis=1, keepdims=True)
    np.divide(vn, norm, out=vn, where=norm > 0)
    area = 0.5 * np.linalg.norm(fn, axis=1)
    return vn, area.sum()


def _lines_inputs(n, rng):
    return rng.integers(0, 4 * n, (n, 4)), np.zeros((4 * n, 4 * n), np.uint8)


@case(_lines_inputs)
def draw_lines_dda_fixed_steps(segs, img, steps=16):
    t = np.linspace(0, 1, steps)
    x = np.rint(segs[:, 0:1] + (segs[:, 2:3] - segs[:, 0:1]) * t).astype(np.int64)
    y = np.rint(segs[:, 1:2] + (segs[:, 3:4] - segs[:, 1:2]) * t).astype(np.int64)
    np.add.at(img, (y.ravel(), x.ravel()), 1)
    np.minimum(img, 3, out=img)
    return img.sum()


def _dither_inputs(n, rng):
    return rng.uniform(0, 1, (n, n + 1)).astype(np.float32),


@case(_dither_inputs)
def floyd_steinberg_dither_where(img):
    H, W = img.shape
    out = np.zeros((H, W), np.uint8)
    for y in range(H):
        for x in range(W):
            old = img[y, x]
            new = np.where(old >= 0.5, np.float32(1), np.float32(0))
            out[y, x] = new
            err = old - new
            if x + 1 < W:
                img[y, x + 1] += err * np.float32(7 / 16)
            if y + 1 < H:
                lo, hi = max(x - 1, 0), min(x + 2, W)
                wts = np.array([3, 5, 1], np.float32)[(lo - x + 1):(hi - x + 1)] / 16
                img[y + 1, lo:hi] += err * wts
    return out


def _mip_inputs(n, rng):
    size = 16 if n < 6 else 32
    return rng.uniform(0, 1, (size, size, 3)).astype(np.float32),


@case(_mip_inputs)
def mipmap_chain_into_atlas(tex):
    S = tex.shape[0]
    atlas = np.zeros((S, S + S // 2, 3), np.float32)
    atlas[:, :S] = tex
    level = tex
    x0 = S
    y0 = 0
    while level.shape[0] > 1:           # static: shapes only
        h = level.shape[0] // 2
        level = level.reshape(h, 2, h, 2, 3).mean(axis=(1, 3))
        atlas[y0:y0 + h, x0:x0 + h] = level
        y0 += h
    return atlas


def _u8img_inputs(n, rng):
    return (rng.integers(0, 256, (n + 1, n + 2, 4)).astype(np.uint8),
            rng.integers(0, 256, (n + 1, n + 2, 4)).astype(np.uint8))


@case(_u8img_inputs)
def uint8_alpha_blend_integer_math(fg, bg):
    a = fg[..., 3:].astype(np.uint16)
    blended = (fg[..., :3].astype(np.uint16) * a + bg[..., :3].astype(np.uint16) * (255 - a) + 127) // 255
    bg[..., :3] = blended            # uint16 -> uint8 by assignment (casting='unsafe' as NumPy setitem)
    bg[..., 3] = np.maximum(bg[..., 3], fg[..., 3])
    return bg.sum(dtype=np.uint64)


def _hsv_inputs(n, rng):
    return rng.uniform(0, 1, (n, n + 1, 3)),


@case(_hsv_inputs)
def rgb_to_hsv_and_back(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx = rgb.max(-1)
    mn = rgb.min(-1)
    d = mx - mn
    h = np.zeros_like(mx)
    nz = d > 0
    rc = np.where(nz, (mx - r) / np.where(nz, d, 1), 0)
    gc = np.where(nz, (mx - g) / np.where(nz, d, 1), 0)
    bc = np.where(nz, (mx - b) / np.where(nz, d, 1), 0)
    h = np.select([~nz, r == mx, g == mx], [0.0, bc - gc, 2.0 + rc - bc], 4.0 + gc - rc)
    h = (h / 6.0) % 1.0
    s = np.where(mx > 0, d / np.where(mx > 0, mx, 1), 0)
    v = mx
    hsv = np.stack([h, s, v], -1)
    # back
    i = np.floor(h * 6).astype(np.int64) % 6
    f = h * 6 - np.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    out = np.empty_like(rgb)
    for k, (rr, gg, bb) in enumerate([(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]):
        m = i == k
        out[m] = np.stack([rr, gg, bb], -1)[m]
    return hsv, out


def _height_inputs(n, rng):
    return rng.standard_normal((n + 2, n + 3)).cumsum(0).cumsum(1),


@case(_height_inputs)
def normal_map_from_heightfield_gradient(hgt, scale=2.0):
    gy, gx = np.gradient(hgt)
    nrm = np.dstack([-gx * scale, -gy * scale, np.ones_like(hgt)])
    nrm /= np.sqrt((nrm ** 2).sum(-1, keepdims=True))
    enc = ((nrm * 0.5 + 0.5) * 255).astype(np.uint8)
    slope = np.degrees(np.arctan(np.hypot(gx, gy)))
    return enc, slope


@case(_height_inputs)
def marching_squares_case_index(hgt, level=0.0):
    a = hgt[:-1, :-1] > level
    b = hgt[:-1, 1:] > level
    c = hgt[1:, 1:] > level
    d = hgt[1:, :-1] > level
    idx = (a.astype(np.uint8) << 3) | (b.astype(np.uint8) << 2) | (c.astype(np.uint8) << 1) | d
    nseg = np.asarray(np.array([0, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 0]))[idx]
    # interpolation parameter along the top edge
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (level - hgt[:-1, :-1]) / (hgt[:-1, 1:] - hgt[:-1, :-1])
    t[~(a ^ b)] = np.nan
    return idx, nseg.sum(), t


def _palette_inputs(n, rng):
    return rng.integers(0, 256, (n, n, 3)).astype(np.uint8), rng.integers(0, 256, (6, 3)).astype(np.uint8)


@case(_palette_inputs)
def palette_quantize_nearest(img, pal):
    d = ((img[:, :, None, :].astype(np.int32) - pal[None, None].astype(np.int32)) ** 2).sum(-1)
    k = d.argmin(-1)
    out = pal[k]
    err = (img.astype(np.int16) - out).astype(np.int16)
    return out, np.abs(err).mean()


def _grid_inputs(n, rng):
    pts = rng.integers(0, 40 * n, (n * 6, 2)).astype(np.float64)
    pts[0] = (0, 0)
    pts[1] = (20, 99)      # np.hypot(20, 99) == 101 exactly in NumPy
    pts[2] = (27, 120)     # and 123
    return pts,


@case(_grid_inputs)
def integer_pixel_distances_hypot(pts):
    """Pins float64 np.hypot as the C library's (3870fcb: floor(np.hypot(20, 99)) was 100)."""
    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    ring = np.floor(d).astype(np.int64)                    # integer distance rings on a pixel grid
    exact = d == np.round(d)
    return ring, exact.sum()


# === bioinformatics and text ==============================================================
def _dna_inputs(n, rng):
    seq = rng.choice(np.frombuffer(b"ACGT", np.uint8), n * 12)
    return seq,


_LUT = np.full(256, 4, np.uint8)
_LUT[np.frombuffer(b"ACGT", np.uint8)] = np.arange(4)


@case(_dna_inputs)
def dna_one_hot_from_ascii(seq):
    codes = np.asarray(_LUT)[seq]
    oh = np.zeros((seq.shape[0], 4), np.float32)
    valid = codes < 4
    oh[np.arange(seq.shape[0]), np.minimum(codes, 3)] = valid
    return oh, codes


@case(_dna_inputs)
def kmer_counts_bit_shifts(seq, k=3):
    codes = np.asarray(_LUT)[seq].astype(np.uint16)
    L = codes.shape[0] - k + 1
    h = np.zeros(L, np.uint16)
    for i in range(k):
        h <<= 2
        h |= codes[i:i + L]
    counts = np.zeros(4 ** k, np.int64)
    np.add.at(counts, h, 1)
    return counts, h


@case(_dna_inputs)
def kmer_rolling_hash_uint8(seq, k=4):
    c = np.asarray(_LUT)[seq]
    h = np.zeros(c.shape[0] - k + 1, np.uint8)
    for i in range(k):
        h = (h << 2) | c[i:i + h.shape[0]]
    return np.bincount(h, minlength=256).reshape(16, 16).sum(axis=1)


@case(_dna_inputs)
def gc_content_sliding_window(seq, w=8):
    gc = ((seq == ord("G")) | (seq == ord("C"))).astype(np.int32)
    cs = np.concatenate([[0], np.cumsum(gc)])
    win = (cs[w:] - cs[:-w]) / w
    alt = np.lib.stride_tricks.sliding_window_view(gc, w).mean(axis=1)
    return win, alt, np.convolve(gc, np.ones(w), mode="valid") / w


_COMP = np.arange(256, dtype=np.uint8)
for _a, _b in zip(b"ACGTacgt", b"TGCAtgca"):
    _COMP[_a] = _b


@case(_dna_inputs)
def reverse_complement_lut(seq):
    rc = np.asarray(_COMP)[seq][::-1]
    pal = (rc == seq)
    seq[:] = rc           # in place, as a user reusing the buffer
    return pal.mean()


def _pwm_inputs(n, rng):
    seq = rng.integers(0, 4, n * 10).astype(np.uint8)
    counts = rng.integers(1, 20, (6, 4)).astype(np.float64)
    return seq, counts


@case(_pwm_inputs)
def pwm_scoring_log_odds(seq, counts, bg=0.25):
    freq = (counts + 0.5) / (counts + 0.5).sum(axis=1, keepdims=True)
    pwm = np.log2(freq / bg)
    L = pwm.shape[0]
    n = seq.shape[0] - L + 1
    scores = np.zeros(n)
    for j in range(L):
        scores += pwm[j, seq[j:j + n]]
    best = scores.argmax()
    # reverse strand
    rcseq = 3 - seq[::-1]
    rscores = np.zeros(n)
    for j in range(L):
        rscores += pwm[j][rcseq[j:j + n]]
    return scores, rscores[::-1], best


def _text_inputs(n, rng):
    text = (b"the quick brown fox jumps over the lazy dog. " * n)[: n * 40]
    return np.frombuffer(text, np.uint8).copy(),


@case(_text_inputs)
def byte_histogram_and_entropy(buf):
    hist = np.bincount(buf, minlength=256)
    p = hist / hist.sum()
    nz = p > 0
    ent = -np.sum(np.where(nz, p * np.log2(np.where(nz, p, 1)), 0))
    upper = buf.copy()
    lower = (upper >= ord("a")) & (upper <= ord("z"))
    upper[lower] -= 32
    words = (buf == ord(" ")).sum() + 1
    return hist, ent, upper, words


@case(_text_inputs)
def bigram_counts_uint16(buf):
    b = buf.astype(np.uint16)
    pair = (b[:-1] << 8) | b[1:]
    counts = np.bincount(pair, minlength=65536)
    top = np.argsort(counts, kind="stable")[-5:][::-1]
    return top, counts[top]


def _qual_inputs(n, rng):
    return rng.integers(33, 74, (n, 30)).astype(np.uint8),


@case(_qual_inputs)
def phred_quality_trim(qual, thresh=20):
    q = qual.astype(np.int16) - 33
    perr = 10.0 ** (-q / 10)
    # trim from the 3' end: running sum of (thresh - q), BWA style, cumulative max
    s = np.cumsum((thresh - q)[:, ::-1], axis=1)
    keep_from_end = np.argmax(s, axis=1)
    good = np.maximum.accumulate(s, axis=1)
    qual[q < 3] = ord("#")
    return perr.mean(axis=1), keep_from_end, good[:, -1]


def _align_inputs(n, rng):
    a = rng.integers(0, 4, n + 3).astype(np.int8)
    b = rng.integers(0, 4, n + 5).astype(np.int8)
    return a, b


@case(_align_inputs)
def needleman_wunsch_antidiagonal_free_rows(a, b, match=2, mismatch=-1, gap=-2):
    n, m = a.shape[0], b.shape[0]
    H = np.zeros((n + 1, m + 1), np.int32)
    H[:, 0] = gap * np.arange(n + 1)
    H[0, :] = gap * np.arange(m + 1)
    sub = np.where(a[:, None] == b[None, :], match, mismatch).astype(np.int32)
    for i in range(1, n + 1):
        diag = H[i - 1, :-1] + sub[i - 1]
        up = H[i - 1, 1:] + gap
        row = np.maximum(diag, up)
        # left dependency: a running max of row[j] - gap*j
        cand = row - gap * np.arange(1, m + 1)
        cand = np.maximum.accumulate(np.concatenate([[H[i, 0]], cand]))
        H[i, 1:] = cand[1:] + gap * np.arange(1, m + 1)
    return H[-1, -1], H


def _codon_inputs(n, rng):
    return rng.integers(0, 4, n * 9).astype(np.uint8),


@case(_codon_inputs)
def codon_translate_table(codes):
    table = np.arange(64, dtype=np.uint8) % 21
    c = codes.reshape(-1, 3).astype(np.int64)
    idx = c[:, 0] * 16 + c[:, 1] * 4 + c[:, 2]
    aa = table[idx]
    stop = aa == 0
    first_stop = np.where(stop.any(), stop.argmax(), len(aa))
    return aa, first_stop


def _sw_inputs(n, rng):
    return rng.integers(0, 4, n + 2).astype(np.uint8), rng.integers(0, 4, n + 3).astype(np.uint8)


@case(_sw_inputs)
def smith_waterman_cellwise(a, b, match=3, mismatch=-3, gap=-2):
    """A table filled cell by cell: pins the write coalescing that was quadratic in the writes
    (75be044, 4011f76: a 24 x 24 table compiled in 121 s)."""
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), np.int16)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = np.where(a[i - 1] == b[j - 1], match, mismatch)
            H[i, j] = np.maximum(0, np.maximum(H[i - 1, j - 1] + s,
                                               np.maximum(H[i - 1, j] + gap, H[i, j - 1] + gap)))
    best = H.max()
    loc = np.unravel_index(H.argmax(), H.shape)
    return best, loc, H


def _pack_inputs(n, rng):
    return rng.integers(0, 4, n * 8).astype(np.uint8),


@case(_pack_inputs)
def two_bit_pack_unpack_and_hamming(codes):
    q = codes.reshape(-1, 4)
    packed = (q[:, 0] << 6) | (q[:, 1] << 4) | (q[:, 2] << 2) | q[:, 3]
    un = np.empty_like(codes).reshape(-1, 4)
    for k in range(4):
        un[:, k] = (packed >> (6 - 2 * k)) & 3
    other = packed[::-1].copy()
    x = packed ^ other
    # count differing 2-bit symbols: OR the bit pairs
    diff = (x | (x >> 1)) & np.uint8(0x55)
    bits = np.unpackbits(diff)
    return packed, un.ravel(), bits.sum(), np.bitwise_count(diff).sum()


def _caesar_inputs(n, rng):
    txt = np.frombuffer(b"Hello, World! Attack at dawn. " * n, np.uint8).copy()
    return txt,


@case(_caesar_inputs)
def caesar_and_vigenere_in_place(txt, shift=3):
    up = (txt >= 65) & (txt <= 90)
    lo = (txt >= 97) & (txt <= 122)
    base = np.where(up, 65, 97).astype(np.uint8)
    letters = up | lo
    key = np.frombuffer(b"LEMON", np.uint8) - 65
    k = np.resize(key, txt.shape)
    shifted = ((txt.astype(np.int16) - base + k) % 26 + base).astype(np.uint8)
    txt[letters] = shifted[letters]
    return np.bincount(txt, minlength=256)[65:91]


def _motif_inputs(n, rng):
    return rng.integers(0, 4, (n, 20)).astype(np.int8),


@case(_motif_inputs)
def profile_matrix_consensus(seqs):
    N, L = seqs.shape
    prof = np.zeros((4, L), np.int64)
    np.add.at(prof, (seqs, np.broadcast_to(np.arange(L), seqs.shape)), 1)
    cons = prof.argmax(axis=0).astype(np.int8)
    p = (prof + 1) / (N + 4)
    info = 2 + (p * np.log2(p)).sum(axis=0)
    ham = (seqs != cons).sum(axis=1)
    return prof, cons, info, ham


# === climate and geoscience ===============================================================
def _field_inputs(n, rng):
    nlat, nlon = n + 2, 2 * n + 4
    lat = np.linspace(-80, 80, nlat)
    field = (rng.standard_normal((3 * 12, nlat, nlon)) + 15).astype(np.float32)
    return field, lat


@case(_field_inputs)
def lat_weighted_global_mean(field, lat):
    w = np.cos(np.deg2rad(lat))
    w = w / w.sum()
    zonal = field.mean(axis=-1)
    gm = (zonal * w).sum(axis=-1)
    gm2 = np.average(field.mean(axis=-1), axis=-1, weights=np.cos(np.deg2rad(lat)))
    return gm, gm2


@case(_field_inputs)
def monthly_climatology_anomalies(field, lat):
    T = field.shape[0]
    f = field.reshape(T // 12, 12, *field.shape[1:])
    clim = f.mean(axis=0)
    f -= clim                          # in place through the reshape view
    std = field.reshape(T // 12, 12, -1).std(axis=0)
    return clim, std.max()


@case(_field_inputs)
def block_average_regrid(field, lat):
    T, H, W = field.shape
    H2, W2 = H // 2, W // 2
    coarse = field[:, :2 * H2, :2 * W2].reshape(T, H2, 2, W2, 2).mean(axis=(2, 4))
    wlat = np.cos(np.deg2rad(lat[:2 * H2])).reshape(H2, 2)
    wcoarse = (field[:, :2 * H2, :2 * W2].reshape(T, H2, 2, W2, 2) * wlat[None, :, :, None, None]).sum(axis=(2, 4))
    wcoarse /= 2 * wlat.sum(axis=1)[None, :, None]
    return coarse, wcoarse


def _temp_inputs(n, rng):
    days = 30 * n
    t = 10 + 12 * np.sin(np.linspace(0, 2 * np.pi, days)) + rng.standard_normal((3, days)) * 3
    return t,


@case(_temp_inputs)
def degree_days_accumulation(t, base=10.0):
    gdd = np.maximum(t - base, 0).cumsum(axis=1)
    hdd = np.maximum(18 - t, 0).sum(axis=1)
    frost = (t < 0)
    # longest frost run per station: running count reset where not frost
    run = np.zeros(t.shape[0], np.int64)
    best = np.zeros(t.shape[0], np.int64)
    for d in range(t.shape[1]):
        run = np.where(frost[:, d], run + 1, 0)
        np.maximum(best, run, out=best)
    first_gdd100 = np.argmax(gdd >= 100, axis=1)
    return gdd[:, -1], hdd, best, first_gdd100


def _periodic_inputs(n, rng):
    return rng.standard_normal((n + 2, 2 * n + 3)),


@case(_periodic_inputs)
def periodic_longitude_laplacian(f, dt=0.1):
    for _ in range(3):
        g = np.concatenate([f[:, -1:], f, f[:, :1]], axis=1)     # wrap in longitude
        lap_x = g[:, :-2] - 2 * f + g[:, 2:]
        lap_y = np.zeros_like(f)
        lap_y[1:-1] = f[:-2] - 2 * f[1:-1] + f[2:]
        f += dt * (lap_x + lap_y)
    return f.copy()


@case(_periodic_inputs)
def pad_wrap_smoothing(f):
    p = np.pad(f, ((1, 1), (2, 2)), mode="wrap")
    p[0] = p[1]
    p[-1] = p[-2]
    k = np.array([1, 4, 6, 4, 1]) / 16
    sm = np.zeros_like(f)
    for j in range(5):
        sm += k[j] * p[1:-1, j:j + f.shape[1]]
    p2 = np.pad(sm, ((1, 1), (0, 0)), mode="edge")
    sm = 0.25 * p2[:-2] + 0.5 * p2[1:-1] + 0.25 * p2[2:]
    return sm


def _landsea_inputs(n, rng):
    f = rng.standard_normal((4, n + 2, 2 * n)) + 5
    land = rng.random((n + 2, 2 * n)) < 0.3
    lat = np.linspace(-60, 60, n + 2)
    return f, land, lat


@case(_landsea_inputs)
def masked_ocean_nanmean(f, land, lat):
    sst = f.copy()
    sst[:, land] = np.nan
    with warnings.catch_warnings():  # all-land rows and columns have NaN means and spreads, as intended
        warnings.simplefilter("ignore", RuntimeWarning)
        zonal = np.nanmean(sst, axis=-1)
        spread = np.nanstd(sst, axis=0)
    w = np.cos(np.deg2rad(lat))
    valid = ~np.isnan(zonal)
    gm = np.nansum(zonal * w, axis=-1) / np.sum(np.where(valid, w, 0), axis=-1)
    filled = np.where(np.isnan(sst), np.nanmean(sst, axis=(1, 2), keepdims=True), sst)
    return zonal, gm, filled, spread


def _precip_inputs(n, rng):
    p = rng.gamma(0.5, 4, (2, 24 * n))
    p[p < 1.0] = 0
    return p,


@case(_precip_inputs)
def precip_dry_spells_and_rolling_sums(p):
    wet = p > 0
    r5 = np.lib.stride_tricks.sliding_window_view(p, 5, axis=1).sum(axis=-1)
    rx5 = r5.max(axis=1)
    # dry spell length via cumsum reset trick
    idx = np.arange(p.shape[1])
    last_wet = np.maximum.accumulate(np.where(wet, idx, -1), axis=1)
    dry_len = idx - last_wet
    return rx5, dry_len.max(axis=1), np.percentile(p, 95, axis=1)


def _wind_inputs(n, rng):
    u = rng.standard_normal((n, 2 * n)) * 5
    v = rng.standard_normal((n, 2 * n)) * 5
    return u, v


@case(_wind_inputs)
def wind_speed_direction_histogram(u, v):
    spd = np.hypot(u, v)
    deg = (270 - np.rad2deg(np.arctan2(v, u))) % 360
    sector = ((deg + 22.5) // 45).astype(np.int64) % 8
    rose = np.zeros((8, 3))
    sbin = np.digitize(spd, [3.0, 8.0])
    np.add.at(rose, (sector.ravel(), sbin.ravel()), 1)
    rose /= rose.sum()
    return rose, spd.mean()


def _geo_inputs(n, rng):
    lat = rng.uniform(-80, 80, n * 3)
    lon = rng.uniform(-180, 180, n * 3)
    return lat, lon


@case(_geo_inputs)
def haversine_pairwise_distances(lat, lon, R=6371.0):
    la = np.radians(lat)
    lo = np.radians(lon)
    dla = la[:, None] - la[None, :]
    dlo = lo[:, None] - lo[None, :]
    a = np.sin(dla / 2) ** 2 + np.cos(la)[:, None] * np.cos(la)[None, :] * np.sin(dlo / 2) ** 2
    d = 2 * R * np.arcsin(np.sqrt(np.clip(a, 0, 1)))
    np.fill_diagonal(d, np.inf)
    nn = d.argmin(axis=1)
    return d.min(axis=1), nn


def _sigma_inputs(n, rng):
    T = 280 + rng.standard_normal((n, 10)).cumsum(axis=1)
    ps = rng.uniform(95000, 102000, n)
    return T, ps


@case(_sigma_inputs)
def hydrostatic_heights_sigma_levels(T, ps, Rd=287.0, g=9.81):
    sig = np.linspace(1.0, 0.1, T.shape[1])
    p = ps[:, None] * sig[None, :]
    z = np.zeros_like(T)
    dlnp = np.log(p[:, :-1] / p[:, 1:])
    Tm = 0.5 * (T[:, 1:] + T[:, :-1])
    z[:, 1:] = np.cumsum(Rd / g * Tm * dlnp, axis=1)
    theta = T * (100000 / p) ** 0.286
    unstable = np.diff(theta, axis=1) < 0
    return z, theta, unstable.sum(axis=1)


def _prof_inputs(n, rng):
    p = np.sort(rng.uniform(100, 1000, (n, 12)), axis=1)[:, ::-1].copy()   # decreasing pressure
    T = 300 - 60 * (1 - p / 1000) + rng.standard_normal((n, 12))
    return p, T


@case(_prof_inputs)
def interpolate_to_pressure_levels(p, T, levels=(850.0, 500.0, 250.0)):
    out = np.full((p.shape[0], len(levels)), np.nan)
    for c in range(p.shape[0]):
        out[c] = np.interp(np.log(levels), np.log(p[c, ::-1]), T[c, ::-1], left=np.nan, right=np.nan)
    lapse = np.diff(T, axis=1) / np.diff(p, axis=1)
    return out, lapse.mean(axis=1)


def _series_inputs(n, rng):
    return 15 + np.cumsum(rng.standard_normal((3, 12 * n)) * 0.3, axis=1),


@case(_series_inputs)
def running_mean_reflect_and_trend(ts, w=5):
    pad = np.pad(ts, ((0, 0), (w // 2, w // 2)), mode="reflect")
    cs = np.cumsum(pad, axis=1)
    cs = np.concatenate([np.zeros((ts.shape[0], 1)), cs], axis=1)
    rm = (cs[:, w:] - cs[:, :-w]) / w
    t = np.arange(ts.shape[1], dtype=np.float64)
    tm = t - t.mean()
    slope = ((ts - ts.mean(axis=1, keepdims=True)) * tm).sum(axis=1) / (tm ** 2).sum()
    z = (ts - ts.mean(axis=1, keepdims=True)) / ts.std(axis=1, ddof=1, keepdims=True)
    return rm, slope, z


@case(_series_inputs)
def seasonal_means_djf(ts):
    Y = ts.shape[1] // 12
    m = ts.reshape(ts.shape[0], Y, 12)
    shifted = np.roll(ts, 1, axis=1).reshape(ts.shape[0], Y, 12)   # Dec moves to next year's slot 0
    djf = shifted[:, 1:, 0:3].mean(axis=2)
    jja = m[:, :, 5:8].mean(axis=2)
    amp = m.max(axis=2) - m.min(axis=2)
    return djf, jja, amp


def _heat_inputs(n, rng):
    T = rng.uniform(60, 110, (n, n + 2)).astype(np.float32)
    RH = rng.uniform(10, 100, (n, n + 2)).astype(np.float32)
    return T, RH


@case(_heat_inputs)
def heat_index_piecewise_float32(T, RH):
    simple = 0.5 * (T + 61.0 + (T - 68.0) * 1.2 + RH * 0.094)
    HI = (-42.379 + 2.04901523 * T + 10.14333127 * RH - .22475541 * T * RH - .00683783 * T * T
          - .05481717 * RH * RH + .00122874 * T * T * RH + .00085282 * T * RH * RH - .00000199 * T * T * RH * RH)
    adj1 = ((13 - RH) / 4) * np.sqrt(np.abs(17 - np.abs(T - 95.)) / 17)
    adj2 = ((RH - 85) / 10) * ((87 - T) / 5)
    HI = np.where((RH < 13) & (T >= 80) & (T <= 112), HI - adj1, HI)
    HI = np.where((RH > 85) & (T >= 80) & (T <= 87), HI + adj2, HI)
    out = np.where((simple + T) / 2 < 80, simple, HI)
    cat = np.digitize(out, [80, 90, 103, 125])
    return out, cat


def _pet_inputs(n, rng):
    T = rng.uniform(-5, 30, (n, 12))
    lat = rng.uniform(-60, 60, n)
    return T, lat


@case(_pet_inputs)
def thornthwaite_pet(T, lat):
    Tp = np.maximum(T, 0)
    heat = ((Tp / 5) ** 1.514).sum(axis=1, keepdims=True)
    a = 6.75e-7 * heat ** 3 - 7.71e-5 * heat ** 2 + 1.792e-2 * heat + 0.49239
    with np.errstate(divide="ignore", invalid="ignore"):
        pet = 16 * (10 * Tp / heat) ** a
    pet[:, :][Tp == 0] = 0
    pet[np.broadcast_to(heat == 0, pet.shape)] = 0
    doy = np.array([15, 46, 74, 105, 135, 166, 196, 227, 258, 288, 319, 349])
    decl = 0.409 * np.sin(2 * np.pi * doy / 365 - 1.39)
    ws = np.arccos(np.clip(-np.tan(np.deg2rad(lat))[:, None] * np.tan(decl), -1, 1))
    N = 24 / np.pi * ws
    pet *= N / 12
    return pet


def _wind32_inputs(n, rng):
    return ((rng.standard_normal((n, 2 * n)) * 5).astype(np.float32),
            (rng.standard_normal((n, 2 * n)) * 5).astype(np.float32))


@case(_wind32_inputs)
def wind_direction_float32_compass_sectors(u, v):
    """Pins float32 np.rad2deg/np.degrees as NumPy's 180f / pif (68d62d7: floor() moved compass sectors)."""
    ang = np.deg2rad(np.arange(0, 360, 22.5, dtype=np.float32))  # a 16-point compass
    back = np.rad2deg(ang)                                 # NumPy's rounding: not all exact multiples of 22.5
    return back, np.floor(back).astype(np.int16)


# === economics and operations =============================================================
def _markov_inputs(n, rng):
    P = rng.random((n + 2, n + 2))
    P /= P.sum(axis=1, keepdims=True)
    return P,


@case(_markov_inputs)
def markov_stationary_power_iteration(P, iters=50):
    pi = np.full(P.shape[0], 1.0 / P.shape[0])
    for _ in range(iters):
        pi = pi @ P
        pi /= pi.sum()
    resid = np.abs(pi @ P - pi).max()
    return pi, resid


@case(_markov_inputs)
def markov_absorbing_and_mean_first_passage(P):
    k = P.shape[0]
    Q = P[1:, 1:].copy()
    N = np.linalg.inv(np.eye(k - 1) - Q)
    t = N.sum(axis=1)
    # n-step distribution via repeated squaring (static loop)
    Pn = P.copy()
    for _ in range(4):
        Pn = Pn @ Pn
    return t, Pn[0]


def _inv_inputs(n, rng):
    demand = rng.poisson(5, (3, n * 4)).astype(np.int64)
    stock = np.array([20, 15, 10])
    return demand, stock


@case(_inv_inputs)
def inventory_sS_policy_simulation(demand, stock, s=6, S=20, lead=2):
    nprod, T = demand.shape
    pipeline = np.zeros((nprod, lead + 1), np.int64)
    lost = np.zeros(nprod, np.int64)
    hist = np.zeros((nprod, T), np.int64)
    for t in range(T):
        stock += pipeline[:, 0]
        pipeline[:, :-1] = pipeline[:, 1:]
        pipeline[:, -1] = 0
        sold = np.minimum(stock, demand[:, t])
        lost += demand[:, t] - sold
        stock -= sold
        position = stock + pipeline.sum(axis=1)
        order = np.where(position <= s, S - position, 0)
        pipeline[:, lead] += order
        hist[:, t] = stock
    return lost, hist


def _queue_inputs(n, rng):
    inter = rng.exponential(1.0, n * 5)
    service = rng.exponential(0.8, n * 5)
    return inter, service


@case(_queue_inputs)
def single_server_queue_lindley(inter, service):
    arrive = np.cumsum(inter)
    # Lindley: waits via cumulative max of a random walk
    x = service[:-1] - inter[1:]
    S = np.concatenate([[0.0], np.cumsum(x)])
    wait = S - np.minimum.accumulate(S)
    start = arrive + wait
    depart = start + service
    depart2 = np.maximum.accumulate(depart)
    return wait, depart2, wait.mean()


def _amort_inputs(n, rng):
    principal = rng.uniform(1e4, 5e5, n)
    rate = rng.uniform(0.02, 0.08, n)
    return principal, rate


@case(_amort_inputs)
def amortization_schedule(principal, rate, years=3):
    r = rate / 12
    N = years * 12
    pay = principal * r / (1 - (1 + r) ** -N)
    bal = principal.copy()
    sched = np.zeros((principal.shape[0], N, 3))
    for k in range(N):
        interest = bal * r
        princ = pay - interest
        bal -= princ
        sched[:, k, 0] = interest
        sched[:, k, 1] = princ
        sched[:, k, 2] = bal
    np.round(sched, 2, out=sched)
    return pay, sched, sched[:, :, 0].sum(axis=1)


def _io_inputs(n, rng):
    A = rng.uniform(0, 0.2, (n + 2, n + 2))
    d = rng.uniform(10, 100, n + 2)
    return A, d


@case(_io_inputs)
def leontief_input_output(A, d):
    eye = np.eye(A.shape[0])
    x = np.linalg.solve(eye - A, d)
    # Neumann series check with a static count of terms
    y = d.copy()
    term = d.copy()
    for _ in range(30):
        term = A @ term
        y += term
    mult = np.linalg.inv(eye - A).sum(axis=0)
    return x, y, mult


def _lp_inputs(n, rng):
    cost = rng.uniform(1, 10, (n + 1, n + 2))
    supply = rng.uniform(10, 20, n + 1)
    demand = rng.uniform(5, 10, n + 2)
    return cost, supply, demand


@case(_lp_inputs)
def northwest_corner_rule_fixed_iterations(cost, supply, demand):
    s = supply.copy()
    d = demand.copy()
    m, k = cost.shape
    X = np.zeros_like(cost)
    # greedy: each step ship along the cheapest open cell (static number of steps)
    open_ = np.ones_like(cost, dtype=bool)
    for _ in range(m + k - 1):
        c = np.where(open_, cost, np.inf)
        flat = c.argmin()
        i, j = np.unravel_index(flat, c.shape)
        q = np.minimum(s[i], d[j])
        X[i, j] += q
        s[i] -= q
        d[j] -= q
        open_[i, :] &= s[i] > 1e-12
        open_[:, j] &= d[j] > 1e-12
    return X, (X * cost).sum()


def _cohort_inputs(n, rng):
    return rng.uniform(0.5, 0.95, (n + 2,)), rng.integers(100, 1000, n + 2)


@case(_cohort_inputs)
def cohort_retention_triangle(ret, sizes):
    k = ret.shape[0]
    tri = np.zeros((k, k))
    tri[:, 0] = sizes
    for j in range(1, k):
        tri[:, j] = tri[:, j - 1] * ret[j]
    upper = np.fliplr(np.triu(np.ones((k, k), bool)))
    tri[~upper] = np.nan
    avg_ret = np.nanmean(tri[:, 1:] / tri[:, :-1], axis=0)
    return tri, avg_ret


def _price_inputs(n, rng):
    return rng.uniform(5, 15, (4, n * 3)), rng.uniform(1, 3, 4)


@case(_price_inputs)
def price_elasticity_demand_revenue(price, elasticity, base=100.0, p0=10.0):
    q = base * (price / p0) ** (-elasticity[:, None])
    rev = price * q
    best = rev.argmax(axis=1)
    cummax_rev = np.maximum.accumulate(rev, axis=1)
    price[rev < rev.mean(axis=1, keepdims=True)] = p0     # reset in place
    return q, rev[np.arange(4), best], cummax_rev


def _npv_inputs(n, rng):
    cf = rng.standard_normal((n, 10)) * 100
    cf[:, 0] = -rng.uniform(200, 500, n)
    return cf,


@case(_npv_inputs)
def irr_by_bisection_fixed_steps(cf):
    t = np.arange(cf.shape[1])
    lo = np.full(cf.shape[0], -0.9)
    hi = np.full(cf.shape[0], 1.0)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        npv = (cf / (1 + mid[:, None]) ** t).sum(axis=1)
        pos = npv > 0
        lo[pos] = mid[pos]
        hi[~pos] = mid[~pos]
    return 0.5 * (lo + hi)


def _bank_inputs(n, rng):
    bal = rng.uniform(0, 1000, n * 3)
    tx = rng.standard_normal((12, n * 3)) * 200
    return bal, tx


@case(_bank_inputs)
def account_ledger_overdraft_fees(bal, tx, fee=35.0, rate=0.001):
    fees = np.zeros_like(bal)
    minbal = bal.copy()
    for m in range(tx.shape[0]):
        bal += tx[m]
        over = bal < 0
        bal[over] -= fee
        fees[over] += fee
        bal[~over] *= 1 + rate
        np.minimum(minbal, bal, out=minbal)
    return fees, minbal


def _gini_inputs(n, rng):
    return rng.lognormal(10, 1, (3, n * 5)),


@case(_gini_inputs)
def gini_and_lorenz(inc):
    """Pins np.interp of a Python-number x (08fc5e2: refused before)."""
    x = np.sort(inc, axis=1)
    n = x.shape[1]
    cum = np.cumsum(x, axis=1)
    lorenz = np.concatenate([np.zeros((x.shape[0], 1)), cum / cum[:, -1:]], axis=1)
    i = np.arange(1, n + 1)
    gini = (2 * (i * x).sum(axis=1) / (n * x.sum(axis=1))) - (n + 1) / n
    top10 = 1 - np.interp(0.9, np.linspace(0, 1, n + 1), lorenz[0])
    return gini, lorenz, top10


def _dep_inputs(n, rng):
    return rng.uniform(1e3, 1e5, n), rng.uniform(0.05, 0.2, n)


@case(_dep_inputs)
def declining_balance_switch_to_straight_line(cost, salvage_frac, life=6, factor=2.0):
    salvage = cost * salvage_frac
    book = cost.copy()
    sched = np.zeros((cost.shape[0], life))
    for y in range(life):
        ddb = book * factor / life
        sl = (book - salvage) / (life - y)
        dep = np.maximum(ddb, sl)
        dep = np.minimum(dep, book - salvage)
        sched[:, y] = dep
        book -= dep
    return sched, book


def _srv_inputs(n, rng):
    return np.cumsum(rng.exponential(0.5, n * 3)), rng.exponential(1.2, n * 3)


@case(_srv_inputs)
def multi_server_queue_traced_index_write(arrive, service, c=3):
    free = np.zeros(c)
    start = np.empty_like(arrive)
    which = np.empty(arrive.shape[0], np.int64)
    for i in range(arrive.shape[0]):
        k = free.argmin()
        start[i] = np.maximum(arrive[i], free[k])
        free[k] = start[i] + service[i]
        which[i] = k
    return start - arrive, which, free


def _tax_inputs(n, rng):
    return rng.uniform(0, 300000, n * 4),


@case(_tax_inputs)
def progressive_tax_brackets(income):
    edges = np.array([0, 11000, 44725, 95375, 182100, 231250, np.inf])
    rates = np.array([0.10, 0.12, 0.22, 0.24, 0.32, 0.35])
    widths = np.diff(edges)
    inb = np.clip(income[:, None] - edges[:-1], 0, widths)
    tax = (inb * rates).sum(axis=1)
    marginal = rates[np.searchsorted(edges, income, side="right") - 1]
    eff = np.divide(tax, income, out=np.zeros_like(tax), where=income > 0)
    return np.round(tax, 2), marginal, eff


def _chain_inputs(n, rng):
    p = rng.uniform(1, 10, (n * 2, 4))
    q = rng.uniform(1, 5, (n * 2, 4))
    return p, q


@case(_chain_inputs)
def chain_linked_fisher_index(p, q):
    lasp = (p[1:] * q[:-1]).sum(1) / (p[:-1] * q[:-1]).sum(1)
    paas = (p[1:] * q[1:]).sum(1) / (p[:-1] * q[1:]).sum(1)
    fisher = np.sqrt(lasp * paas)
    idx = np.empty(p.shape[0])
    idx[0] = 100
    idx[1:] = 100 * np.cumprod(fisher)
    infl = np.diff(np.log(idx))
    return idx, infl


def _eoq_inputs(n, rng):
    return rng.integers(100, 10000, n * 2).astype(np.int32), rng.uniform(10, 100, n * 2).astype(np.float32)


@case(_eoq_inputs)
def eoq_integer_demand_float32_costs(D, S, H=np.float32(2.5)):  # noqa: B008
    q = np.sqrt(2 * D * S / H)
    orders = np.ceil(D / q).astype(np.int32)
    cost = D / q * S + q / 2 * H
    q_int = np.rint(q).astype(np.int32)
    return q_int, orders, cost


# === dtype mixes and view idioms inside domain code =======================================
def _act_inputs(n, rng):
    return (rng.standard_normal((n, 8)) * 3).astype(np.float32),


@case(_act_inputs)
def asymmetric_uint8_activation_quant(x):
    lo = np.minimum(x.min(axis=1, keepdims=True), 0)
    hi = np.maximum(x.max(axis=1, keepdims=True), 0)
    scale = (hi - lo) / 255
    zp = np.round(-lo / scale).astype(np.int32)
    q = np.empty(x.shape, np.uint8)
    np.clip(np.round(x / scale) + zp, 0, 255, out=q, casting="unsafe")
    deq = (q.astype(np.int32) - zp).astype(np.float32) * scale
    sat = (q == 0) | (q == 255)
    return q, zp.ravel().astype(np.uint8), deq, sat.sum(axis=1, dtype=np.uint8)


@case(_act_inputs)
def sort_rows_in_place_through_view_and_median(x):
    """Sorts through a view; np.quantile of float32 at a list of q pins 441dca1 as the next program does."""
    x[:, 1:].sort(axis=1)
    med = np.median(x, axis=1)
    q = np.quantile(x, [0.25, 0.75], axis=1)
    iqr = q[1] - q[0]
    x[:, 0] = np.clip(x[:, 0], med - 3 * iqr, med + 3 * iqr)
    return med, iqr


def _q_inputs(n, rng):
    return rng.standard_normal((n, 9)).astype(np.float32),


@case(_q_inputs)
def robust_scaling_float32_quantiles(x):
    """Pins np.quantile of float32 at a list of q, interpolated in float64 as NumPy's (441dca1)."""
    q1, q3 = np.quantile(x, [0.1, 0.9], axis=1, keepdims=True)
    return (x - q1) / (q3 - q1)


def _sprite_inputs(n, rng):
    return np.zeros((3 * n, 3 * n), np.uint16), rng.integers(0, 1000, (n, n + 1)).astype(np.uint16)


@case(_sprite_inputs)
def blit_rotated_flipped_sprites(canvas, sprite):
    h, w = sprite.shape
    canvas[:h, :w] = sprite
    r = np.rot90(sprite)
    canvas[-w:, -h:] += r
    canvas[::-1, :][:h, w:2 * w] = sprite            # vertical flip view, then slice
    view = np.moveaxis(canvas.reshape(3, canvas.shape[0] // 3, canvas.shape[1]), 0, -1)
    view[..., 1] >>= 1
    np.fill_diagonal(canvas, 65535)
    canvas[np.diag_indices(min(h, w))] -= 1
    return canvas.max(axis=0)


def _mix_inputs(n, rng):
    a = rng.integers(-128, 128, (n, 6)).astype(np.int8)
    b = rng.integers(0, 256, (n, 6)).astype(np.uint8)
    c = rng.integers(0, 65536, (n, 6)).astype(np.uint16)
    h = rng.standard_normal((n, 6)).astype(np.float16)
    return a, b, c, h


@case(_mix_inputs)
def sensor_fusion_mixed_integer_dtypes(a, b, c, h):
    s = a + b                       # int16
    d = b - b[::-1]                 # uint8 wraps
    e = c * h                       # float32
    f = a // np.int8(3)             # floor toward -inf
    g = np.left_shift(a, 2)         # int8 overflow wraps
    m = np.mean(c, axis=0)          # float64
    t = (b > 128).sum(axis=1)       # int64
    u = np.cumsum(h, axis=1)        # float16 running sum
    a[a < 0] += 100                 # int8 compound through a mask
    h[:, ::2] *= np.float16(0.5)
    return s, d, e, f, g, m, t, u


@case(_mix_inputs)
def narrow_dtype_ufunc_at_and_wraps(a, b, c, h):
    hist8 = np.zeros(4, np.uint8)
    np.add.at(hist8, b.ravel() % 4, 1)            # wraps past 255
    acc16 = np.zeros(3, np.int16)
    np.add.at(acc16, np.arange(a.size) % 3, a.ravel())
    mx = np.full(3, -1, np.int8)
    np.maximum.at(mx, [0, 1, 2, -1, -2], a[0, :5])
    np.subtract.at(c[0], [0, 0, 1], np.uint16(7))
    lo = np.zeros(2, np.float16)
    np.add.at(lo, [0, 1, 0, 1, 0, 0], h[0])
    return hist8, acc16, mx, lo


def _cal_inputs(n, rng):
    raw = rng.integers(0, 4096, (n, 4)).astype(np.uint16)      # 12-bit ADC codes
    gain = rng.uniform(0.9, 1.1, 4).astype(np.float32)
    off = rng.integers(-20, 20, 4).astype(np.int16)
    return raw, gain, off


@case(_cal_inputs)
def adc_calibration_in_place(raw, gain, off):
    v = raw.astype(np.int32) + off             # int32
    volts = v * gain * np.float32(3.3 / 4095)  # float32? (int32 * float32 -> float64)
    over = raw >= 4090
    raw[over] = 4095
    raw -= np.minimum(raw, np.uint16(5))       # no wrap
    code = np.round(volts * 1000).astype(np.int16)
    return volts, code


def _ring_inputs(n, rng):
    return np.zeros(8, np.float32), rng.standard_normal(n * 3).astype(np.float32)


@case(_ring_inputs)
def ring_buffer_moving_average(buf, xs):
    out = np.empty_like(xs)
    head = 0
    for i in range(xs.shape[0]):
        buf[head] = xs[i]
        head = (head + 1) % buf.shape[0]
        k = min(i + 1, buf.shape[0])
        out[i] = buf.sum() / k
    return out, np.roll(buf, -head)


def _suffix_inputs(n, rng):
    return rng.integers(0, 4, n + 6).astype(np.uint8),


@case(_suffix_inputs)
def suffix_array_prefix_doubling(s):
    n = s.shape[0]
    rank = s.astype(np.int64)
    k = 1
    sa = np.arange(n)
    while k < n:                         # static: depends on the length only
        second = np.full(n, -1)
        second[:n - k] = rank[k:]
        sa = np.lexsort((second, rank))
        r1 = rank[sa]
        r2 = second[sa]
        new = np.zeros(n, np.int64)
        new[1:] = np.cumsum((r1[1:] != r1[:-1]) | (r2[1:] != r2[:-1]))
        rank = np.empty(n, np.int64)
        rank[sa] = new
        k *= 2
    return sa, rank


def _uv_inputs(n, rng):
    return rng.standard_normal((n * 10,)) * 4, rng.standard_normal((n * 10,)) * 4


@case(_uv_inputs)
def wind_histogram2d_and_digitize_right(u, v):
    H, xe, ye = np.histogram2d(u, v, bins=[np.linspace(-10, 10, 6), np.linspace(-10, 10, 5)])
    b = np.digitize(np.hypot(u, v), [1.0, 4.0, 8.0], right=True)
    cnt = np.histogram(b, bins=4, range=(0, 4))[0]
    return H, xe, cnt


def _sched_inputs(n, rng):
    t = np.sort(rng.uniform(0, 24, n * 3))
    prices = rng.uniform(20, 80, 24)
    return t, prices


@case(_sched_inputs)
def tariff_lookup_searchsorted_sorter(t, prices):
    hours = np.arange(24.0)
    order = np.argsort(-prices, kind="stable")
    idx = np.searchsorted(hours, t, side="right") - 1
    cost = prices[idx]
    rank = np.empty(24, np.int64)
    rank[order] = np.arange(24)
    peak = rank[idx] < 6
    cum = np.cumsum(cost.astype(np.float16), dtype=np.float16)
    pos = np.searchsorted(np.sort(prices), cost, sorter=None)
    return cost, peak, cum, pos


def _fp16_train_inputs(n, rng):
    W = (rng.standard_normal((n, 4)) * 0.1).astype(np.float16)
    X = rng.standard_normal((6, n)).astype(np.float16)
    return W, X


@case(_fp16_train_inputs)
def fp16_inplace_ops_out_and_where(W, X):
    Y = X @ W
    np.maximum(Y, 0, out=Y)
    np.multiply(Y, np.float16(1.5), out=Y, where=Y > 1)
    np.exp(W, out=W, where=W < 0)
    np.add(W[:, :2], W[:, 2:], out=W[:, 2:])          # out overlaps an operand
    np.negative(W[::2], out=W[::2])
    s = np.sum(Y, axis=0, dtype=np.float32)
    return Y, s


def test_corpus_size():
    assert len(CORPUS) >= 2 * 150


@pytest.mark.parametrize("f,make,n,optimize", CORPUS)
def test_accept2_program_matches_numpy(f, make, n, optimize):
    check_against_numpy(f, *make(n, np.random.default_rng(100 + n)), optimize=optimize)
