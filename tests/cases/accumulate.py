# An accumulator carries its value across iterations: it is never multi-versioned. (`+=` reads
# as `acc[0] = acc[0] + …`.)
X_sh = alloc([1])
acc = alloc([1], scope="local")
for i in range(10):
    X_sh[0] = X[i]
    acc[0] += X_sh[0] * 2
    Y[i] = acc[0]

sch.annotate(i, "software_pipeline_stage", [0, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0])
