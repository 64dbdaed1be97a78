#!/usr/bin/env python3
"""What the arena itself holds as the games at once grow: threads, memory, open files and its
CPU per move, with the built-in `instant` engine (issue 25).

    cargo build --release
    python3 benches/concurrency.py                     # concurrency 1, 64, 256 and 1024
    python3 benches/concurrency.py --levels 1,64 --games-per-slot 4

Each level runs `blitz-arena gauntlet instant --vs instant --concurrency C` for C x
--games-per-slot games, at least --min-games (tc 60+0: the engines answer at once, so nobody loses on time) and
reads the arena's /proc entries every --every seconds while it plays: its threads
(/proc/PID/task), its resident memory (VmRSS), its open files (/proc/PID/fd), each at its
peak, and the engines' resident memory summed (their own processes). The arena's CPU per move
is its own CPU time (utime + stime of its process once it has exited, before it is reaped)
over the moves of games.csv; the wall time between a `bestmove` and the next `go` is the
arena's own summary line. Context switches a ply are those of the arena's threads (all of
them, from its rusage when it is reaped) and of the engines it reaped, over the plies: the
engines' part is the same whatever the arena does, so a change in it is the arena's wake-ups. A level the arena refuses before its first game (the open files,
processes or memory it would need are not there) prints the arena's line instead.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def count(path):
    try:
        return len(os.listdir(path))
    except OSError:
        return 0


def rss_kib(pid):
    """Resident memory of a process, KiB (0 once it is gone)."""
    try:
        with open("/proc/%d/statm" % pid) as f:
            return int(f.read().split()[1]) * PAGE_KIB
    except (OSError, IndexError, ValueError):
        return 0


def engines_of(pid):
    """The engine processes the arena started (children of any of its threads)."""
    found = []
    for tid in os.listdir("/proc/%d/task" % pid) if os.path.isdir("/proc/%d" % pid) else []:
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                found += [int(c) for c in f.read().split()]
        except OSError:
            pass
    engines = []
    for child in found:
        try:
            with open("/proc/%d/cmdline" % child, "rb") as f:
                if b"\0engine\0" in f.read():
                    engines.append(child)
        except OSError:
            pass
    return engines


class Peaks:
    def __init__(self):
        self.threads = self.fds = self.rss = self.engines = self.engines_rss = 0
        self.samples = 0

    def sample(self, pid, with_engines):
        self.samples += 1
        self.threads = max(self.threads, count("/proc/%d/task" % pid))
        self.fds = max(self.fds, count("/proc/%d/fd" % pid))
        self.rss = max(self.rss, rss_kib(pid))
        if with_engines:
            engines = engines_of(pid)
            self.engines = max(self.engines, len(engines))
            self.engines_rss = max(self.engines_rss, sum(rss_kib(e) for e in engines))


def level(args, work, c):
    out = os.path.join(work, "c%d" % c)
    games = max(c * args.games_per_slot, args.min_games)
    argv = [args.arena, "gauntlet", "instant", "--vs", "instant", "--games", str(games),
            "--concurrency", str(c), "--tc", "60s+0s", "--out", out]
    log = out + ".log"
    peaks = Peaks()
    start = time.monotonic()
    # The engines are counted from a moment in, when every game has started.
    last_engines = start - 0.3
    with open(log, "wb") as f:
        proc = subprocess.Popen(argv, cwd=work, stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            now = time.monotonic()
            # Summing a thousand engines' memory is costly: twice a second.
            with_engines = now - last_engines >= 0.5
            if with_engines:
                last_engines = now
            peaks.sample(proc.pid, with_engines)
            time.sleep(args.every)
        wall = time.monotonic() - start
        with open("/proc/%d/stat" % proc.pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        # Reaped here for its rusage: every thread's context switches, the dead ones' too,
        # and its engines' (it reaps them).
        _, status, usage = os.wait4(proc.pid, 0)
        code = proc.returncode = os.waitstatus_to_exitcode(status)
    text = open(log, encoding="utf-8", errors="replace").read()
    if code != 0:
        last = text.strip().splitlines()[-1] if text.strip() else "(no output)"
        return "| %d | refused or failed (exit %d): %s |" % (c, code, last)
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    rows = list(csv.DictReader(open(os.path.join(out, "games.csv"))))
    plies = sum(int(r["plies"]) for r in rows)
    losses = sum(r["termination"] in ("flag", "both-flags") for r in rows)
    gap = re.search(r"(\d+) us wall per move between bestmove", text)
    switches = usage.ru_nvcsw + usage.ru_nivcsw
    return "| %d | %d | %d | %d | %.1f | %d | %d | %.0f | %.1f | %s | %d | %.1f | %.2f |" % (
        c, games, plies, peaks.threads, peaks.rss / 1024, peaks.fds, peaks.engines,
        peaks.engines_rss / 1024, cpu * 1e6 / plies if plies else float("nan"),
        gap.group(1) if gap else "?", losses, wall,
        switches / plies if plies else float("nan"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(HERE)
    p.add_argument("--arena", default=os.path.join(root, "target/release/blitz-arena"))
    p.add_argument("--levels", default="1,64,256,1024", help="concurrency levels")
    p.add_argument("--games-per-slot", type=int, default=2)
    p.add_argument("--min-games", type=int, default=200)
    p.add_argument("--every", type=float, default=0.02, help="seconds between samples")
    p.add_argument("--keep", help="keep the runs' folders in this directory")
    args = p.parse_args()
    args.arena = os.path.abspath(args.arena)
    if not os.access(args.arena, os.X_OK):
        sys.exit("no arena at %s: cargo build --release, or give --arena" % args.arena)
    try:
        levels = [int(c) for c in args.levels.split(",")]
    except ValueError:
        sys.exit("--levels: numbers separated by commas, e.g. 1,64,256")
    work = args.keep or tempfile.mkdtemp(prefix="blitz-concurrency-")
    os.makedirs(work, exist_ok=True)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("# blitz-arena at growing concurrency, %s, %d CPUs, load average %s\n" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), load))
    print("| concurrency | games | plies | arena threads | arena RSS MB | arena open files"
          " | engines | engines' RSS MB | arena CPU µs/ply | wall µs between bestmove and go"
          " | losses on time | wall s | context switches a ply, arena and engines |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    sys.stdout.flush()
    try:
        for c in levels:
            print(level(args, work, c))
            sys.stdout.flush()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    with open("/proc/loadavg") as f:
        print("\nload average at the end: %s" % " ".join(f.read().split()[:3]))


if __name__ == "__main__":
    main()
