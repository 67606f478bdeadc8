#!/usr/bin/env python3
"""twosample_ref.py - an independent reference for tests/test_twosample.c.

Pure Python (no SciPy), by brute force, so it shares no code and no
algorithm with src/stats/twosample.c:

  * U = #(x > y) + 0.5 #(x == y), counted over all pairs (the C code uses
    midranks);
  * the exact null distribution of U by enumerating every split of the
    ranks 1..m+n into m ranks for x (itertools.combinations; the C code
    uses a generating function); the exact two-sided p-value
    2 * min(P(U <= u), P(U >= u)), capped at 1;
  * with ties, the exact conditional (permutation) distribution of U given
    the observed values: every split of the pooled values into m for x and
    n for y equally likely, U of each split counted pair by pair
    (itertools.combinations over positions, up to C(20, 10) splits), and,
    for larger samples, by enumerating how many of each group of equal
    values go to x, weighted by the product of binomial coefficients (the
    two agree where both run; the C code runs a dynamic programme over
    doubled midranks); p as above;
  * the normal approximation with tie-corrected variance and continuity
    correction (Conover, Practical Nonparametric Statistics, 3rd ed., 5.1):
    z = (|U - mn/2| - 1/2) / sigma, sigma^2 = mn/12 ((N+1) -
    sum(t^3 - t) / (N (N-1))), p = erfc(z / sqrt 2);
  * the Hodges-Lehmann shift (median of all y_j - x_i, fully sorted) and
    its interval [D(k), D(mn+1-k)], k the largest with 1 - 2 P(U <= k-1)
    >= level, P from the enumerated distribution (the continuous null
    distribution, also when the data have ties, as the C code does); the
    ratio the same on logarithms.

Run: python3 tests/reference/twosample_ref.py; the numbers it prints are
pasted into tests/test_twosample.c.
"""
import itertools
import math
from collections import Counter

DATA = {
    # ministat(1)'s example (iguana, chameleon); ties within and across.
    "iguana_chameleon": (
        [50, 200, 150, 400, 750, 400, 150],
        [150, 400, 720, 500, 930],
    ),
    # Hollander & Wolfe (1973), p. 69 (also R's ?wilcox.test): permeability
    # constants; no ties, 10 vs 5.
    "hollander_wolfe": (
        [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46],
        [1.15, 0.88, 0.90, 0.74, 1.21],
    ),
    # Timings in whole ticks: many ties, 12 vs 15.
    "ticks": (
        [102, 100, 101, 100, 103, 100, 102, 101, 100, 104, 101, 100],
        [104, 103, 105, 103, 104, 110, 103, 104, 106, 105, 103, 104, 107, 104, 105],
    ),
    # No ties, 8 vs 9, overlapping.
    "no_ties_8_9": (
        [12.1, 13.4, 11.8, 14.2, 12.9, 13.1, 12.4, 15.0],
        [13.9, 14.8, 13.3, 15.6, 14.1, 16.2, 12.7, 14.5, 15.3],
    ),
    # No ties, 11 vs 12, well separated but overlapping tails.
    "no_ties_11_12": (
        [5.11, 5.32, 4.98, 5.05, 5.41, 5.27, 5.19, 5.02, 5.36, 5.14, 5.23],
        [5.29, 5.48, 5.57, 5.39, 5.62, 5.44, 5.51, 5.33, 5.70, 5.46, 5.53, 5.25],
    ),
}
# Ties only: the exact conditional p (and, where the normal approximation
# is what the C code uses, z and p of it). Whole ticks tie all the time.
TIED = {
    # 3 vs 3, all tied within a side: the smallest p any 3 vs 3 split has.
    "tied_3_3": ([5, 5, 5], [6, 6, 6]),
    # 4 vs 4 fully separated, tied within a side: 2 / C(8, 4).
    "tied_4_4": ([5, 5, 5, 5], [6, 6, 6, 6]),
    # Ties across the sides.
    "tied_5_4": ([10, 11, 11, 12, 12], [11, 12, 13, 13]),
    # 10 vs 10 in whole ticks.
    "tied_10_10": (
        [100, 101, 100, 102, 100, 101, 103, 100, 101, 102],
        [101, 102, 103, 101, 104, 102, 103, 102, 101, 105],
    ),
    # 30 vs 31 in whole ticks (x: 100 + (7i mod 5), y: 101 + (3j mod 6)):
    # nx + ny > 60, the normal approximation.
    "tied_30_31": (
        [100 + (7 * i) % 5 for i in range(30)],
        [101 + (3 * j) % 6 for j in range(31)],
    ),
}
EXACT_TIED_MAX_N = 60  # as in src/stats/twosample.c
BRUTE_MAX_SPLITS = 200000
LEVELS = (0.95, 0.99)


def u_of(x, y):
    return sum((xi > yj) + 0.5 * (xi == yj) for xi in x for yj in y)


def null_counts(m, n):
    """counts[u] = number of rank splits with U = u (no ties)."""
    counts = [0] * (m * n + 1)
    for ranks in itertools.combinations(range(1, m + n + 1), m):
        counts[sum(ranks) - m * (m + 1) // 2] += 1
    return counts


def cdf_of(counts):
    total = sum(counts)
    out, acc = [], 0
    for c in counts:
        acc += c
        out.append(acc / total)
    return out


def exact_p(u, counts):
    total = sum(counts)
    lower = sum(counts[: int(u) + 1]) / total
    upper = sum(counts[int(u):]) / total
    return min(1.0, 2 * min(lower, upper))


def tail_p(dist, u2):
    """Two-sided p from {2U: count}: 2 min(P(U <= u), P(U >= u)), <= 1."""
    total = sum(dist.values())
    lower = sum(c for v, c in dist.items() if v <= u2) / total
    upper = sum(c for v, c in dist.items() if v >= u2) / total
    return min(1.0, 2 * min(lower, upper))


def tied_dist_brute(x, y):
    """{2U: number of splits} over every split of the pooled positions."""
    pooled = list(x) + list(y)
    big, m = len(pooled), len(x)
    # g[i][k]: 2 * ((pooled[i] > pooled[k]) + 0.5 (pooled[i] == pooled[k]))
    g = [[2 * (a > b) + (a == b) for b in pooled] for a in pooled]
    dist = Counter()
    for xs in itertools.combinations(range(big), m):
        inx = set(xs)
        ys = [k for k in range(big) if k not in inx]
        dist[sum(g[i][k] for i in xs for k in ys)] += 1
    return dist


def tied_dist_groups(x, y):
    """The same by how many of each group of equal values go to x."""
    groups = sorted(Counter(list(x) + list(y)).items())
    sizes = [t for _, t in groups]
    m = len(x)
    dist = Counter()

    def walk(g, left, below_y, u2, weight):
        # below_y: y values in the groups before g; u2: 2U so far
        if g == len(sizes):
            if left == 0:
                dist[u2] += weight
            return
        t = sizes[g]
        for c in range(0, min(t, left) + 1):
            # each of the c x values beats the y values below and ties
            # with the t - c y values of its own group
            walk(g + 1, left - c, below_y + t - c, u2 + c * (2 * below_y + (t - c)),
                 weight * math.comb(t, c))

    walk(0, m, 0, 0, 1)
    return dist


def exact_tied_line(x, y):
    m, n = len(x), len(y)
    dist = tied_dist_groups(x, y)
    assert sum(dist.values()) == math.comb(m + n, m)
    how = "groups"
    if math.comb(m + n, m) <= BRUTE_MAX_SPLITS:
        assert dist == tied_dist_brute(x, y)
        how = "every split"
    return f"p_exact_tied = {tail_p(dist, round(2 * u_of(x, y))):.17g} ({how})"


def normal_p(x, y):
    m, n = len(x), len(y)
    big = m + n
    u = u_of(x, y)
    ties = sum(t ** 3 - t for t in Counter(list(x) + list(y)).values())
    var = m * n / 12 * ((big + 1) - ties / (big * (big - 1)))
    z = max(0.0, abs(u - m * n / 2) - 0.5) / math.sqrt(var)
    return u, (z if u >= m * n / 2 else -z), min(1.0, math.erfc(z / math.sqrt(2)))


def hl(x, y, level, cdf):
    d = sorted(yj - xi for xi in x for yj in y)
    mn = len(d)
    est = d[mn // 2] if mn % 2 else (d[mn // 2 - 1] + d[mn // 2]) / 2
    k = 0
    while k < (mn + 1) // 2 and 1 - 2 * cdf[k] >= level - 1e-12:
        k += 1
    if k == 0:
        return est, None, None, None, 0
    return est, d[k - 1], d[mn - k], 1 - 2 * cdf[k - 1], k


def main():
    for name, (x, y) in DATA.items():
        m, n = len(x), len(y)
        counts = null_counts(m, n)
        cdf = cdf_of(counts)
        u, z, pn = normal_p(x, y)
        tied = len(set(x + y)) < m + n
        print(f"/* {name}: nx = {m}, ny = {n}, ties: {'yes' if tied else 'no'} */")
        print(f"u_x = {u!r}")
        if not tied:
            print(f"p_exact = {exact_p(u, counts):.17g}")
        elif m + n <= EXACT_TIED_MAX_N:
            print(exact_tied_line(x, y))
        print(f"z_normal = {z:.17g}")
        print(f"p_normal = {pn:.17g}")
        for level in LEVELS:
            est, lo, hi, cov, k = hl(x, y, level, cdf)
            print(f"hl[{level}] = estimate {est:.17g}, k {k}, lo {lo!r}, hi {hi!r}, "
                  f"coverage {cov!r}")
            lx = [math.log(v) for v in x]
            ly = [math.log(v) for v in y]
            est, lo, hi, cov, k = hl(lx, ly, level, cdf)
            print(f"ratio[{level}] = estimate {math.exp(est):.17g}, "
                  f"lo {math.exp(lo) if lo is not None else None!r}, "
                  f"hi {math.exp(hi) if hi is not None else None!r}")
        print()
    for name, (x, y) in TIED.items():
        m, n = len(x), len(y)
        u = u_of(x, y)
        print(f"/* {name}: nx = {m}, ny = {n}, ties: yes */")
        print(f"u_x = {u!r}")
        if m + n <= EXACT_TIED_MAX_N:
            print(exact_tied_line(x, y))
        else:
            _, z, pn = normal_p(x, y)
            print(f"z_normal = {z:.17g}")
            print(f"p_normal = {pn:.17g}")
        print()
    # The exact distribution itself for a few sizes: P(U <= u) at chosen u.
    for m, n, us in ((3, 4, (0, 1, 2, 5, 6)), (6, 6, (2, 5, 10, 17)), (5, 9, (3, 8, 14, 22))):
        cdf = cdf_of(null_counts(m, n))
        print(f"/* cdf {m} x {n}: " + ", ".join(f"F({u}) = {cdf[u]:.17g}" for u in us) + " */")
    # Smallest n per side with 1 - 2 / C(2n, n) >= level (first look).
    for level in (0.95, 0.99, 0.995, 1 - 0.05 / 7):
        n = 2
        while 1 - 2 / math.comb(2 * n, n) < level - 1e-12:
            n += 1
        print(f"first n for level {level!r}: {n}")


if __name__ == "__main__":
    main()
