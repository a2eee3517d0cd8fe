# RFC (c) as TVM 0.27 builds it: the prologue commits both copies of an iteration as ONE group, the
# body commits them separately, and the body waits for 5 everywhere. The first two body iterations
# then leave a needed group in flight: they need 3 and 4 (see rfc_c_fixed_counts.py).
A_sh = alloc([4, 1], scope="shared", versions=4)
B_sh = alloc([4, 1], scope="shared", versions=4)
for i in range(3):
    with async_commit_queue(0):
        with async_scope():
            A_sh[i % 4, 0] = A[i]
        with async_scope():
            B_sh[i % 4, 0] = B[i]
for i in range(3, 16):
    with async_commit_queue(0):
        with async_scope():
            A_sh[i % 4, 0] = A[i]
    with async_wait_queue(0, 5):
        C[i - 3] = A_sh[(i - 3) % 4, 0] + B_sh[(i - 3) % 4, 0]
    with async_commit_queue(0):
        with async_scope():
            B_sh[i % 4, 0] = B[i]
for i in range(16, 19):
    with async_wait_queue(0, 0):
        C[i - 3] = A_sh[(i - 3) % 4, 0] + B_sh[(i - 3) % 4, 0]
