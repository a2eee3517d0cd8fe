# RFC (b) as TVM prints it: B keeps 2 versions although `C = B + 1` reads it asynchronously.
# The stage-0 write of B at iteration i + 2 reuses the slot that the async read of iteration i may
# still be reading: Stagecraft gives B a third version instead (see `stagecraft explore`).
B = alloc([2, 1], scope="shared", versions=2)
C = alloc([2, 1], scope="shared", versions=2)
with async_commit_queue(0):
    with async_scope():
        B[0, 0] = A[0] + 1
with async_commit_queue(0):
    with async_scope():
        B[1, 0] = A[1] + 1
with async_wait_queue(0, 1):
    with async_commit_queue(1):
        with async_scope():
            C[0, 0] = B[0, 0] + 1
for i in range(2, 16):
    with async_commit_queue(0):
        with async_scope():
            B[i % 2, 0] = A[i] + 1
    with async_wait_queue(0, 1):
        with async_commit_queue(1):
            with async_scope():
                C[(i - 1) % 2, 0] = B[(i - 1) % 2, 0] + 1
    with async_wait_queue(1, 1):
        D[i - 2] = C[(i - 2) % 2, 0] + 1
with async_wait_queue(0, 0):
    with async_commit_queue(1):
        with async_scope():
            C[1, 0] = B[1, 0] + 1
with async_wait_queue(1, 1):
    D[14] = C[0, 0] + 1
with async_wait_queue(1, 0):
    D[15] = C[1, 0] + 1
