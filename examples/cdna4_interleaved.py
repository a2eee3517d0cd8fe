# The CDNA4 interleaved schedule of seed 002 (InjectCdna4Pipeline, HipKittens style): the
# global->shared copies (G2S) of tile k+1 are spread between the four MFMA sub-stages of tile k,
# each sub-stage reading its fragments from shared memory (S2R) first. Rows of A and columns of B
# are split in halves as in the note; kp is the k-pack index.
#
# 512 threads in 8 waves of 64 run it, as in the note. A_sh and B_sh are spread over them
# ("blocked": each element is written by one thread, the elements in even runs over the 8 waves,
# so every wave's LDS DMA writes its part of each tile) and every wave reads the whole tile. A wave's wait (its own
# vmcnt) completes only its own DMA: after each wait Stagecraft derives a barrier (the note's
# s_barrier after vmcnt(0)) before the reads of what other waves copied, and a barrier before
# B_sh is refilled while other waves may still read it (B_sh has one version in this order, as in
# TVM's pass; the note's B is double-buffered because its pass interleaves after TileLang's
# pipeline versioned it). Delete the barriers — each wave waiting only on its own count, as
# tests/pipelined/cdna4_wave_local_waits.py does — and a wave reads another wave's tile before
# that wave's DMA has landed: the note's output-mismatch class (docs/execution-model.md,
# "Threads"), which the interpreter across threads reports naming both waves.
A_sh = alloc([4, 2], scope="shared", dtype="bfloat16", threads="blocked")
B_sh = alloc([8, 2], scope="shared", dtype="bfloat16", threads="blocked")
A_loc = alloc([4, 2], scope="local", dtype="bfloat16")
B_loc = alloc([8, 2], scope="local", dtype="bfloat16")
acc = alloc([4, 8], scope="local")
for k in range(8):
    for r in range(2):
        for p in range(2):
            A_sh[r, p] = A[r, 2 * k + p]
    for r in range(2):
        for p in range(2):
            A_sh[r + 2, p] = A[r + 2, 2 * k + p]
    for c in range(4):
        for p in range(2):
            B_sh[c, p] = B[2 * k + p, c]
    for c in range(4):
        for p in range(2):
            B_sh[c + 4, p] = B[2 * k + p, c + 4]
    for r in range(4):
        A_loc[r, 0] = A_sh[r, 0]
    for c in range(4):
        B_loc[c, 0] = B_sh[c, 0]
    for r in range(4):
        for c in range(4):
            acc[r, c] = fma(A_loc[r, 0], B_loc[c, 0], acc[r, c])
    for c in range(4):
        B_loc[c + 4, 0] = B_sh[c + 4, 0]
    for r in range(4):
        for c in range(4):
            acc[r, c + 4] = fma(A_loc[r, 0], B_loc[c + 4, 0], acc[r, c + 4])
    for r in range(4):
        A_loc[r, 1] = A_sh[r, 1]
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

# Units: G2S A lo, G2S A hi, G2S B lo, G2S B hi | stage 0: S2R A kp0, S2R B kp0 lo, MFMA |
# stage 1: S2R B kp0 hi, MFMA | stage 2: S2R A kp1, S2R B kp1 lo, MFMA | stage 3: S2R B kp1 hi, MFMA.
# The copies of the next tile are placed after each sub-stage's S2R, as the note's figure shows.
sch.annotate(k, "software_pipeline_stage", [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
sch.annotate(k, "software_pipeline_order", [2, 5, 9, 12, 0, 1, 3, 4, 6, 7, 8, 10, 11, 13])
sch.annotate(k, "software_pipeline_async_stages", [0])
sch.annotate(k, "stagecraft_threads", [512])
sch.annotate(k, "stagecraft_waves", [8])
