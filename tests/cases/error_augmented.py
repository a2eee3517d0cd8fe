# Augmented assignment and chained comparisons are Python, but not the loop language.
for i in range(8):
    C[0] += A[i]
    if 0 < i < 4:
        D[i] = A[i]
