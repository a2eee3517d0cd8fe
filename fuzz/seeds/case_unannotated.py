for i in range(4):
    C[i] = A[i] * 2
