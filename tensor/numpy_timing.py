"""The timing the tensor/*_benchmark_numpy.py scripts share: NumPy's time
per call as the median of five rounds of a fixed number of calls.

  from numpy_timing import median_per_call  # the script's own folder
"""
import time


def median_per_call(fn, calls, clock=time.process_time):
    """The median over 5 rounds of the time per call of `calls` calls of
    fn(), in the unit of `clock` (seconds for time.process_time and
    time.perf_counter, nanoseconds for time.process_time_ns)."""
    rounds = []
    for _ in range(5):
        start = clock()
        for _ in range(calls):
            fn()
        rounds.append((clock() - start) / calls)
    rounds.sort()
    return rounds[2]
