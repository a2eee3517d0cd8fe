# RFC (a), pipelined by hand: the prologue's copy is async but in no commit scope (line 5).
B = alloc([2, 1], scope="shared", dtype="float32", versions=2)
# prologue
with async_scope():
    B[0, 0] = A[0] + 1
for i in range(1, 16):
    with async_commit_queue(0):
        with async_scope():
            B[i % 2, 0] = A[i] + 1
    with async_wait_queue(0, 1):
        C[i - 1] = B[(i - 1) % 2, 0] + 1
with async_wait_queue(0, 0):
    C[15] = B[1, 0] + 1
