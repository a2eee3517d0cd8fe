# RFC (a), pipelined by hand: the body's wait count changes with i (line 12), which a target
# cannot encode in its one wait instruction; the IR alone runs it safely.
# checked with: --emit amdgpu
B = alloc([2, 1], scope="shared", dtype="float32", versions=2)
with async_commit_queue(0):
    with async_scope():
        B[0, 0] = A[0] + 1
for i in range(1, 16):
    with async_commit_queue(0):
        with async_scope():
            B[i % 2, 0] = A[i] + 1
    with async_wait_queue(0, i % 2):
        C[i - 1] = B[(i - 1) % 2, 0] + 1
with async_wait_queue(0, 0):
    C[15] = B[1, 0] + 1
