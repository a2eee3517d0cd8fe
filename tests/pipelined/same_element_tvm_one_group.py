# TVM 0.27's program for tests/cases/async_same_element.py (`stagecraft explore
# tests/cases/async_same_element.py --as tvm-0.27`): both writes of S0's element in one group.
# global buffers (kernel parameters): A, B, C, D
S0 = alloc([2, 2], scope="shared", dtype="float32", versions=2)
# prologue
for i in range(2):
    if i >= 1:
        with async_commit_queue(1):
            with async_scope():
                S0[(i - 1) % 2, (i - 1) % 2] = A[i - 1]
            with async_scope():
                S0[(i - 1) % 2, (i - 1) % 2] = B[i - 1]
# body
for i in range(6):
    with async_commit_queue(1):
        with async_scope():
            S0[(i + 1) % 2, (i + 1) % 2] = A[i + 1]
        with async_scope():
            S0[(i + 1) % 2, (i + 1) % 2] = B[i + 1]
    with async_wait_queue(1, 1):
        C[i] = S0[i % 2, i % 2] + 1
    D[i] = A[i]
# epilogue
for i in range(2):
    if i < 1:
        with async_commit_queue(1):
            with async_scope():
                S0[(i + 7) % 2, (i + 7) % 2] = A[i + 7]
            with async_scope():
                S0[(i + 7) % 2, (i + 7) % 2] = B[i + 7]
    with async_wait_queue(1, 1 if i < 1 and i < 1 else 0):
        C[i + 6] = S0[(i + 6) % 2, (i + 6) % 2] + 1
    D[i + 6] = A[i + 6]
