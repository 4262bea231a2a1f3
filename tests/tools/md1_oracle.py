#!/usr/bin/env python3
"""md1_oracle.py SEED RATE SECONDS CAPACITY [SEEDS]

The M/D/1 oracle for tests/integration/test_queueing.sh. Rebuilds the
intended send times of `pacer -R RATE --arrival poisson --seed SEED -d
SECONDS` from the definition in docs/methodology.md ("Load shapes": gap i
is -ln U_i, U_i from splitmix64 of (seed, i), summed in 2^-20 fixed point,
arrival n at sum_n / RATE), runs them through one first-come-first-served
server with the fixed service time 1/CAPACITY (Lindley:
slot_i = max(arrival_i, slot_{i-1} + S)), and prints

    COUNT SAMPLE_WAIT_US ANALYTIC_WAIT_US [MEAN_OVER_SEEDS_US]

COUNT is the number of requests the schedule has (pacer's `scheduled`
must equal it), SAMPLE_WAIT_US the mean wait of exactly these arrivals,
ANALYTIC_WAIT_US Pollaczek-Khinchine's rho S / (2 (1 - rho)), and with
SEEDS the mean of the sample wait over seeds SEED+1 .. SEED+SEEDS.
"""
import math
import sys

MASK = (1 << 64) - 1


def gap(seed, i):
    z = (seed + (i + 1) * 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    u = (float(z >> 11) + 0.5) * 2.0 ** -53
    return int(-math.log(u) * float(1 << 20) + 0.5)


def arrivals(seed, rate, end_ns):
    s, i, out = 0, 0, []
    while True:
        s += gap(seed, i)
        i += 1
        t = math.floor(s / float(1 << 20) / rate * 1e9 + 0.5)
        if t >= end_ns:
            return out
        out.append(t)


def mean_wait_us(times, service_ns):
    slot, total = -1e30, 0.0
    for t in times:
        slot = max(t, slot + service_ns)
        total += slot - t
    return total / len(times) / 1e3 if times else 0.0


def main():
    seed, rate, secs, cap = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    service = 1e9 / cap
    a = arrivals(seed, rate, int(secs * 1e9))
    rho = rate / cap
    out = [str(len(a)), "%.3f" % mean_wait_us(a, service), "%.3f" % (rho * service / (2 * (1 - rho)) / 1e3)]
    if len(sys.argv) > 5:
        n = int(sys.argv[5])
        w = [mean_wait_us(arrivals(seed + k, rate, int(secs * 1e9)), service) for k in range(1, n + 1)]
        out.append("%.3f" % (sum(w) / n))
    print(" ".join(out))


main()
