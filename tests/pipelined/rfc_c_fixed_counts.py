# RFC (c) with the prologue grouped as TVM does, and the counts its first body iterations need.
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
    with async_wait_queue(0, 3 if i == 3 else (4 if i == 4 else 5)):
        C[i - 3] = A_sh[(i - 3) % 4, 0] + B_sh[(i - 3) % 4, 0]
    with async_commit_queue(0):
        with async_scope():
            B_sh[i % 4, 0] = B[i]
for i in range(16, 19):
    with async_wait_queue(0, 0):
        C[i - 3] = A_sh[(i - 3) % 4, 0] + B_sh[(i - 3) % 4, 0]
