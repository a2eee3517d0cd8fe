# The CDNA4 preset's derived program (examples/cdna4_interleaved.py, `stagecraft explore
# examples/cdna4_interleaved.py --form peeled`) with every barrier() deleted: each of the 8 waves
# waits only on its own count (its vmcnt), which completes its own LDS DMA and says nothing about
# the parts of the tile the other seven waves' DMA writes. A wave then reads a part another wave
# copied before that copy is published to it — the output-mismatch class of seed 002's note (the
# note's vmcnt(0) is followed by s_barrier for this reason). core/tests/cdna4_waves.rs checks that
# this file is exactly the derived program without its barriers, and that the interpreter across
# threads reports the race naming both waves.
# global buffers (kernel parameters): A, B
A_sh = alloc([2, 4, 2], scope="shared", dtype="bfloat16", versions=2, threads="blocked")
B_sh = alloc([8, 2], scope="shared", dtype="bfloat16", threads="blocked")
A_loc = alloc([4, 2], scope="local", dtype="bfloat16")
B_loc = alloc([8, 2], scope="local", dtype="bfloat16")
acc = alloc([4, 8], scope="local", dtype="float32")
# prologue
with async_commit_queue(0):
    with async_scope():
        for r in range(2):
            for p in range(2):
                A_sh[0, r, p] = A[r, p]
with async_commit_queue(0):
    with async_scope():
        for r in range(2):
            for p in range(2):
                A_sh[0, r + 2, p] = A[r + 2, p]
with async_commit_queue(0):
    with async_scope():
        for c in range(4):
            for p in range(2):
                B_sh[c, p] = B[p, c]
with async_commit_queue(0):
    with async_scope():
        for c in range(4):
            for p in range(2):
                B_sh[c + 4, p] = B[p, c + 4]
# body
for k in range(1, 8):
    with async_wait_queue(0, 2):
        for r in range(4):
            A_loc[r, 0] = A_sh[(k - 1) % 2, r, 0]
    with async_wait_queue(0, 1):
        for c in range(4):
            B_loc[c, 0] = B_sh[c, 0]
    with async_commit_queue(0):
        with async_scope():
            for r in range(2):
                for p in range(2):
                    A_sh[k % 2, r, p] = A[r, 2 * k + p]
    for r in range(4):
        for c in range(4):
            acc[r, c] = fma(A_loc[r, 0], B_loc[c, 0], acc[r, c])
    with async_wait_queue(0, 1):
        for c in range(4):
            B_loc[c + 4, 0] = B_sh[c + 4, 0]
    with async_commit_queue(0):
        with async_scope():
            for r in range(2):
                for p in range(2):
                    A_sh[k % 2, r + 2, p] = A[r + 2, 2 * k + p]
    for r in range(4):
        for c in range(4):
            acc[r, c + 4] = fma(A_loc[r, 0], B_loc[c + 4, 0], acc[r, c + 4])
    for r in range(4):
        A_loc[r, 1] = A_sh[(k - 1) % 2, r, 1]
    for c in range(4):
        B_loc[c, 1] = B_sh[c, 1]
    with async_commit_queue(0):
        with async_scope():
            for c in range(4):
                for p in range(2):
                    B_sh[c, p] = B[2 * k + p, c]
    for r in range(4):
        for c in range(4):
            acc[r, c] = fma(A_loc[r, 1], B_loc[c, 1], acc[r, c])
    for c in range(4):
        B_loc[c + 4, 1] = B_sh[c + 4, 1]
    with async_commit_queue(0):
        with async_scope():
            for c in range(4):
                for p in range(2):
                    B_sh[c + 4, p] = B[2 * k + p, c + 4]
    for r in range(4):
        for c in range(4):
            acc[r, c + 4] = fma(A_loc[r, 1], B_loc[c + 4, 1], acc[r, c + 4])
# epilogue
with async_wait_queue(0, 2):
    for r in range(4):
        A_loc[r, 0] = A_sh[1, r, 0]
with async_wait_queue(0, 1):
    for c in range(4):
        B_loc[c, 0] = B_sh[c, 0]
for r in range(4):
    for c in range(4):
        acc[r, c] = fma(A_loc[r, 0], B_loc[c, 0], acc[r, c])
with async_wait_queue(0, 0):
    for c in range(4):
        B_loc[c + 4, 0] = B_sh[c + 4, 0]
for r in range(4):
    for c in range(4):
        acc[r, c + 4] = fma(A_loc[r, 0], B_loc[c + 4, 0], acc[r, c + 4])
for r in range(4):
    A_loc[r, 1] = A_sh[1, r, 1]
for c in range(4):
    B_loc[c, 1] = B_sh[c, 1]
for r in range(4):
    for c in range(4):
        acc[r, c] = fma(A_loc[r, 1], B_loc[c, 1], acc[r, c])
for c in range(4):
    B_loc[c + 4, 1] = B_sh[c + 4, 1]
for r in range(4):
    for c in range(4):
        acc[r, c + 4] = fma(A_loc[r, 1], B_loc[c + 4, 1], acc[r, c + 4])

sch.annotate(k, "stagecraft_threads", [512])
sch.annotate(k, "stagecraft_waves", [8])
