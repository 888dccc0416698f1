// Copyright 2026 The Tessera Authors.

#include "bench/shootout/numpy_child.h"

#include "absl/strings/str_cat.h"

namespace tessera {
namespace shootout {
namespace {

// Shared head: import NumPy or explain what is missing.
constexpr char kImport[] = R"py(
import json, sys, time
try:
    import numpy as np
except Exception as e:
    print(json.dumps({"error": "NumPy comparison skipped: %s cannot import "
                      "numpy (%s); install the Debian package python3-numpy"
                      % (sys.executable, e)}))
    sys.exit(3)
active = "numpy %s from %s, Python %s" % (
    np.__version__, np.__file__, sys.version.split()[0])
)py";

constexpr char kProbe[] = R"py(
print(json.dumps({"active": active}))
)py";

constexpr char kMeasure[] = R"py(
workload, op, n, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
f32 = np.float32
if op in ("add", "sum"):
    a = np.arange(0, n, 1, dtype=f32)
    b = np.ones(n, dtype=f32)
call = {
    "arange": lambda: np.arange(0, n, 1, dtype=f32),
    "zeros": lambda: np.zeros(n, dtype=f32),
    "add": lambda: a + b,
    "sum": lambda: a.sum(),
}[op]

def fail(why):
    print(json.dumps({"error": "validation: numpy %s: %s" % (op, why)}))
    sys.exit(3)

r = call()
if r.dtype != f32:
    fail("dtype %s" % r.dtype)
if op == "sum":
    want = n * (n - 1) / 2
    if abs(float(r) - want) > 1e-4 * want:
        fail("sum %r, want %r" % (float(r), want))
else:
    index = np.arange(n, dtype=np.float64)
    want = {"arange": index, "zeros": np.zeros(n), "add": index + 1}[op]
    if r.shape != (n,) or not np.array_equal(r.astype(np.float64), want):
        fail("wrong elements")
del r
t0 = time.process_time_ns()
for _ in range(calls):
    call()
t1 = time.process_time_ns()
print(json.dumps({"subject": "numpy", "peer": "numpy", "workload": workload,
                  "active": active,
                  "metrics": {"ns_per_op": (t1 - t0) / calls,
                              "calls": calls}}))
)py";

}  // namespace

std::vector<std::string> NumpyChildArgs(const std::string& python,
                                        const std::string& workload,
                                        const std::string& op,
                                        int64_t elements, int64_t calls) {
  return {python,
          "-c",
          absl::StrCat(kImport, kMeasure),
          workload,
          op,
          absl::StrCat(elements),
          absl::StrCat(calls)};
}

std::vector<std::string> NumpyProbeArgs(const std::string& python) {
  return {python, "-c", absl::StrCat(kImport, kProbe)};
}

}  // namespace shootout
}  // namespace tessera
