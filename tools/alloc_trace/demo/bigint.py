"""A Python big-integer workload for the alloc_trace demo (nobody here wrote
CPython's long arithmetic, which is what gets exercised): factorials, a
Fibonacci run, modular powers and decimal conversions. Every int object and
digit array is a malloc/free pair in CPython, so the trace is small-object
churn with a long tail of growing blocks."""
import math

total = 0
for n in range(200, 2200, 200):
    total += math.factorial(n) % 1000003
a, b = 0, 1
for _ in range(20000):
    a, b = b, a + b
total += a % 1000003
m = (1 << 2203) - 1
for base in range(2, 40):
    total += pow(base, m - 1, m) % 1000003
for k in range(1, 60):
    total += len(str(3 ** (k * 150)))  # below CPython's 4300-digit limit
print(total)
