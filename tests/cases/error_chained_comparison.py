# A chained comparison is Python, but not the loop language (an augmented assignment, `+=`, is).
for i in range(8):
    C[0] += A[i]
    if 0 < i < 4:
        D[i] = A[i]
