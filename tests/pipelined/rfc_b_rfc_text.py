# RFC 0077's example (b), its pipelined listing as the RFC prints it — with `with` before each scope,
# `async_wait_queue` where the RFC's last two waits say `async_wait_group`, and `D[i + 14]` where
# it says `D[(i + 14) % 2]` (both slips of the RFC) — its epilogue's `if … else:` included. B and C
# keep TVM's 2 versions, so the check finds the race RFC (b) is known for (docs/tvm.md).
B = alloc([2])
C = alloc([2])

# Prologue
for i in range(2):
    with async_commit_queue(0):
        with async_scope():
            B[i % 2] = A[i] + 1

    if 1 <= i:
        with async_commit_queue(1):
            with async_wait_queue(0, 1):
                with async_scope():
                    C[(i - 1) % 2] = B[(i - 1) % 2] + 1

# Body
for i in range(14):
    # Stage 0, in the review's shorthand
    with async_stage(0):
        B[(i + 2) % 2] = A[i + 2] + 1

    # Stage 1
    with async_commit_queue(1):
        with async_wait_queue(0, 1):
            with async_scope():
                C[(i + 1) % 2] = B[(i + 1) % 2] + 1

    # Stage 2
    with async_wait_queue(1, 1):
        D[i] = C[i % 2] + 1

# Epilogue
for i in range(2):
    if i < 1:
        with async_commit_queue(1):
            with async_wait_queue(0, 0):
                with async_scope():
                    C[(i + 15) % 2] = B[(i + 15) % 2] + 1

    if i < 1:
        with async_wait_queue(1, 1):
            D[i + 14] = C[(i + 14) % 2] + 1
    else:
        with async_wait_queue(1, 0):
            D[i + 14] = C[(i + 14) % 2] + 1
