/* Every order of a few dimensions, for the tests that try each memory
 * order of a tensor (tests/layout, tests/lib). */
#ifndef PJDL_TESTS_PERMUTATIONS_H_
#define PJDL_TESTS_PERMUTATIONS_H_

#include <stdbool.h>
#include <stdint.h>

/* Steps `p` (n values) to the next permutation in lexicographic order, or,
 * after the last, back to the first and returns false. Started from
 * 0, 1, ..., n - 1, a do-while loop visits all n! orders. */
static inline bool test_next_permutation(int *p, int n) {
    int i = n - 2;
    while (i >= 0 && p[i] >= p[i + 1])
        i--;
    if (i >= 0) {
        int j = n - 1;
        while (p[j] <= p[i])
            j--;
        int swap = p[i];
        p[i] = p[j];
        p[j] = swap;
    }
    for (int lo = i + 1, hi = n - 1; lo < hi; lo++, hi--) {
        int swap = p[lo];
        p[lo] = p[hi];
        p[hi] = swap;
    }
    return i >= 0;
}

/* The element strides of a compact tensor of `shape` whose dimensions lie
 * in memory in the order `minor_to_major`. */
static inline void test_order_strides(const int64_t *shape, const int *minor_to_major, int n,
                                      int64_t *strides) {
    int64_t s = 1;
    for (int i = 0; i < n; i++) {
        strides[minor_to_major[i]] = s;
        s *= shape[minor_to_major[i]];
    }
}

#endif
