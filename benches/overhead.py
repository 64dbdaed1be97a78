#!/usr/bin/env python3
"""The arena's own cost per move, side by side with fastchess and cutechess-cli.

    cargo build --release
    python3 benches/overhead.py                      # every configuration (20-40 minutes)
    python3 benches/overhead.py --only instant,sweep # some of them
    python3 benches/overhead.py --quick              # a tiny run of each (what the test runs)
    python3 benches/overhead.py --only ratio,instructions --fastchess PATH --alternations 5

Configurations (issue 11), each on the same games for every tool: the openings of
benches/openings.epd in order, each played twice with colours swapped, the same engines, the
same time control:

    instant  the built-in `instant` engine (`blitz-arena engine instant`: the first legal move,
             at once) against itself, tc 60+0, concurrency 1; `--engine python` uses
             benches/instant.py (python-chess) instead
    sf2000   Stockfish at 2000 nodes a move, tc 60+0, concurrency 1
    sftc     Stockfish at 1+0.01 (1 s + 10 ms), concurrency 2: losses on time
    sweep    the arena alone, `instant` at concurrency 1 to 64, tc 2s+20ms, half the games
             with a flag injected (--inject-flag 0.5): CPU per move, losses on time in the
             games without an injection, flag-detection latency from the run's summary;
             --sweep-runs N runs each concurrency N times and gives the median and range of
             the runs' 99th percentiles
    growth   the arena's wall time between a `bestmove` and the next `go`, by ply, over long
             games of the built-in `random` engine, seeded (does a move late in a game cost
             more than an early one?)
    length   the arena alone, the `instant` engine in games of 8 plies (--max-moves 4), with an
             SPRT that never decides (both engines are the same), at --length-games games and
             at four times as many: CPU per move of each run and their ratio. A cost a game
             that grows with the games already played (the SPRT counted again from every row,
             as it once was) shows as a ratio above 1; a flat cost gives about 1
    ratio    the arena and fastchess by turns on identical work, --alternations times (the
             `instant` games and Stockfish at 2000 nodes, --ratio-work): each round's CPU per
             ply of both and their ratio, then the median and spread of the ratio. The two run
             back to back, first one then the other, so a change in the machine's load falls
             on both; only the ratio within a round is compared (needs --fastchess). With
             the floor built (`cargo build --release --example floor`, or --floor PATH),
             each round also replays the arena's games with examples/floor.rs, a manager
             that does only what every manager with real clocks must, bare and with the
             arena's CPU reading a move: the least any manager spends on the same moves
    instructions
             the `instant` games (100 by default, --cg-games) with the arena under valgrind's
             callgrind: instructions a move, in all and by part (the referee, the dead-position
             test, report.html's re-rulings, the PGN, the event record). Unlike CPU time this
             does not depend on the machine's load, so it is what to compare before and after
             a change (needs valgrind; not part of the default set). With --fastchess, the
             same games with fastchess under callgrind too, and the ratio; --cg-work adds
             Stockfish at 2000 nodes (--cg-sf-games). With the floor built, the floor's
             count on the arena's games too, bare and with the CPU meter

--pin CPUS (`--pin 0`) runs every measured command, the engines it starts included, on those
CPUs only. On this project's 2-vCPU machine a wake-up that crosses CPUs costs more than the
arena's own work a move, and where the threads land moves from run to run (fastchess's CPU a
move came out at either about 30 or about 50 µs, runs of one binary back to back); on one CPU
both tools' figures repeat to a tick.

For each run the manager's own CPU time (utime + stime of its process, from /proc/PID/stat
read when it has exited and before it is reaped) and its engines' (cutime + cstime: the
children it reaped) are reported separately, per ply (plies counted from games.csv or the
PGN). fastchess and cutechess-cli run when they are on PATH (or given by --fastchess /
--cutechess); the last column is the arena's CPU per ply over theirs.
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")
# The CPUs every measured command runs on (--pin); None: wherever the kernel puts them.
PIN = None


def run_measured(argv, cwd, log):
    """Runs argv to completion; returns (wall s, own CPU s, children's CPU s, exit code)."""
    start = time.monotonic()
    with open(log, "wb") as out:
        pin = PIN
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL,
                                preexec_fn=(lambda: os.sched_setaffinity(0, pin)) if pin else None)
        # Wait for the exit without reaping: a zombie's /proc/PID/stat keeps its times.
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        wall = time.monotonic() - start
        with open("/proc/%d/stat" % proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        code = proc.wait()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return wall, (utime + stime) / TICK, (cutime + cstime) / TICK, code


def pgn_games(path):
    """(plies, time forfeit) of each game of a PGN file."""
    text = open(path, encoding="utf-8", errors="replace").read()
    games = []
    for chunk in re.split(r"\n(?=\[Event )", text):
        if not chunk.strip():
            continue
        forfeit = '[Termination "time forfeit"]' in chunk
        body = "\n".join(l for l in chunk.splitlines() if not l.startswith("["))
        body = re.sub(r"\{[^}]*\}", " ", body)
        while re.search(r"\([^()]*\)", body):
            body = re.sub(r"\([^()]*\)", " ", body)
        tokens = [t for t in body.split()
                  if not re.fullmatch(r"\d+\.+|\.+|1-0|0-1|1/2-1/2|\*|\$\d+", t)]
        tokens = [re.sub(r"^\d+\.+", "", t) for t in tokens]
        games.append((len([t for t in tokens if t]), forfeit))
    return games


class Result:
    def __init__(self, tool, wall, cpu, engines_cpu, plies, games, losses, extra=""):
        self.tool, self.wall, self.cpu, self.engines_cpu = tool, wall, cpu, engines_cpu
        self.plies, self.games, self.losses, self.extra = plies, games, losses, extra

    def per_ply(self, seconds):
        return seconds * 1e6 / self.plies if self.plies else float("nan")


def arena_run(args, work, name, engines_toml, pair, tc, games, concurrency, extra=()):
    out = os.path.join(work, name + "-arena")
    argv = [args.arena, "gauntlet", pair[0], "--vs", pair[1], "--engines", engines_toml,
            "--tc", tc, "--games", str(games), "--concurrency", str(concurrency),
            "--openings", args.book, "--openings-order", "sequential", "--seed", "1",
            "--out", out, *extra]
    log = out + ".log"
    wall, cpu, engines_cpu, code = run_measured(argv, work, log)
    text = open(log, encoding="utf-8", errors="replace").read()
    if code != 0:
        sys.exit("arena failed (exit %d), see %s:\n%s" % (code, log, text[-2000:]))
    rows = list(csv.DictReader(open(os.path.join(out, "games.csv"))))
    plies = sum(int(r["plies"]) for r in rows)
    clean = [r for r in rows if not r["injected"]]
    losses = sum(r["termination"] in ("flag", "both-flags", "engine-stall") for r in clean)
    gap = re.search(r"arena overhead: \d+ us CPU per move .*?, (\d+) us wall", text)
    flags = re.search(r"flag detection: .*", text)
    res = Result("blitz-arena", wall, cpu, engines_cpu, plies, len(rows), losses,
                 "gap %s us" % gap.group(1) if gap else "")
    res.flags = flags.group(0) if flags else ""
    res.out = out
    return res


def other_argv(args, tool, engines, tc, games, concurrency, nodes, pgn):
    """The command line of fastchess or cutechess-cli for the games `compare` plays."""
    program = args.fastchess if tool == "fastchess" else args.cutechess
    argv = [program]
    for ename, cmd, eargs, options in engines:
        argv += ["-engine", "cmd=" + cmd, "name=" + ename]
        if eargs:
            if tool == "fastchess":
                argv.append("args=" + " ".join(eargs))
            else:
                argv += ["arg=" + a for a in eargs]
        argv += ["option.%s=%s" % kv for kv in options.items()]
    each = ["proto=uci", "tc=" + tc]
    if nodes:
        each.append("nodes=%d" % nodes)
    argv += ["-each", *each, "-rounds", str(games // 2), "-games", "2", "-repeat",
             "-concurrency", str(concurrency),
             "-openings", "file=" + args.book, "format=epd", "order=sequential"]
    argv += ["-pgnout", ("file=" + pgn) if tool == "fastchess" else pgn]
    return argv


def other_run(args, tool, work, name, engines, tc, games, concurrency, nodes=None):
    """fastchess or cutechess-cli on the same games: `engines` are (name, cmd, [args], {opt})."""
    if not (args.fastchess if tool == "fastchess" else args.cutechess):
        return None
    pgn = os.path.join(work, "%s-%s.pgn" % (name, tool))
    argv = other_argv(args, tool, engines, tc, games, concurrency, nodes, pgn)
    cwd = tempfile.mkdtemp(prefix=tool + "-", dir=work)  # fastchess writes config.json here
    log = pgn[:-4] + ".log"
    wall, cpu, engines_cpu, code = run_measured(argv, cwd, log)
    if code != 0 or not os.path.exists(pgn):
        text = open(log, encoding="utf-8", errors="replace").read()
        sys.exit("%s failed (exit %d), see %s:\n%s" % (tool, code, log, text[-2000:]))
    played = pgn_games(pgn)
    return Result(tool, wall, cpu, engines_cpu, sum(p for p, _ in played), len(played),
                  sum(f for _, f in played))


def table(title, results):
    arena = results[0]
    print("\n## %s\n" % title)
    print("| tool | games | plies | manager CPU µs/ply | engines CPU µs/ply | wall µs/ply"
          " | losses on time | arena CPU / tool's |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        ratio = arena.cpu / arena.plies / (r.cpu / r.plies) if r.cpu and r.plies else float("nan")
        print("| %s | %d | %d | %.1f | %.1f | %.1f | %d | %s |" % (
            r.tool, r.games, r.plies, r.per_ply(r.cpu), r.per_ply(r.engines_cpu),
            r.per_ply(r.wall), r.losses, "%.2f" % ratio if r is not arena else "1"))
    if arena.extra:
        print("\narena: %s per move between bestmove and the next go" % arena.extra)
    sys.stdout.flush()


def arena_tc(tc):
    """The other tools' `SECONDS+SECONDS` in the arena's syntax (where `M+S` is minutes)."""
    base, inc = tc.split("+")
    return "%gms+%gms" % (float(base) * 1000, float(inc) * 1000)


def write_toml(work, name, engines):
    toml = os.path.join(work, name + ".toml")
    with open(toml, "w") as f:
        for ename, cmd, eargs, options in engines:
            f.write('[engines.%s]\ncmd = "%s"\nargs = %s\n' % (ename, cmd, json.dumps(eargs)))
            if options:
                f.write("options = { %s }\n" % ", ".join("%s = %s" % kv for kv in options.items()))
    return toml


def compare(args, work, name, title, engines, tc, games, concurrency, nodes=None):
    toml = write_toml(work, name, engines)
    extra = ["--nodes", str(nodes)] if nodes else []
    results = [arena_run(args, work, name, toml, [engines[0][0], engines[1][0]], arena_tc(tc),
                         games, concurrency, extra)]
    for tool in ("fastchess", "cutechess"):
        r = other_run(args, tool, work, name, engines, tc, games, concurrency, nodes)
        if r:
            results.append(r)
    table("%s (%d games, concurrency %d, tc %s s)" % (title, games, concurrency, tc), results)
    return results


def instant_engines(args):
    if args.engine == "python":
        cmd = [sys.executable, os.path.join(HERE, "instant.py")]
        return [(n, cmd[0], cmd[1:], {}) for n in ("instant1", "instant2")]
    return [(n, os.path.abspath(args.arena), ["engine", "instant"], {})
            for n in ("instant1", "instant2")]


def stockfish_engines(args):
    opts = {"Hash": 16, "Threads": 1}
    return [(n, args.stockfish, [], opts) for n in ("sf1", "sf2")]


def works(args):
    """The work the ratio and the instruction counts compare: name -> (title, engines, tc,
    games, nodes)."""
    return {
        "instant": ("instant engine (%s)" % args.engine, instant_engines(args), "60+0",
                    args.games, None),
        "sf2000": ("Stockfish at 2000 nodes", stockfish_engines(args), "60+0", args.sf_games,
                   2000),
    }


def spread(values):
    """The median, and the range around it."""
    return statistics.median(values), min(values), max(values)


def floor_games(arena_out, path):
    """The arena's games as the floor replays them: a line each, the start FEN, a tab, the
    moves played (UCI)."""
    with open(path, "w") as f:
        for line in open(os.path.join(arena_out, "events.jsonl")):
            game = json.loads(line)
            moves = [e["uci"] for e in game["events"] if e["event"] == "move"]
            f.write("%s\t%s\n" % (game["opening"]["fen"], " ".join(moves)))
    return path


def floor_argv(args, games, engines, tc, nodes, meter):
    """The floor's command line for `games` with the first of `engines`, as the arena played
    them: the same time control, node limit and options."""
    _, cmd, eargs, options = engines[0]
    argv = [args.floor, games, "--tc-ms", str(int(float(tc.split("+")[0]) * 1000))]
    if nodes:
        argv += ["--nodes", str(nodes)]
    if meter:
        argv.append("--meter")
    for kv in options.items():
        argv += ["--option", "%s=%s" % kv]
    return argv + ["--", cmd, *eargs]


def floor_run(args, work, run, arena, games, engines, tc, nodes, meter):
    """examples/floor.rs on `games`, the arena's games of this round (`floor_games`): the
    least a manager spends a move (stamps, one write, an epoll wait against the clock, the
    reads); with `meter`, also the reading of the engine's CPU the arena takes at each
    `bestmove`."""
    argv = floor_argv(args, games, engines, tc, nodes, meter)
    log = os.path.join(work, run + ("-floor-meter.log" if meter else "-floor.log"))
    wall, cpu, engines_cpu, code = run_measured(argv, work, log)
    if code != 0:
        text = open(log, encoding="utf-8", errors="replace").read()
        sys.exit("floor failed (exit %d), see %s:\n%s" % (code, log, text[-2000:]))
    return Result("floor", wall, cpu, engines_cpu, arena.plies, arena.games, 0)


# The columns of a ratio round that are ratios (the rest are µs a ply): arena / fastchess,
# floor / fastchess, floor with meter / fastchess.
RATIO_COLUMNS = (2, 5, 6)


def ratio_cell(column, template):
    """`template` with each `%s` made the column's number format: two decimals for a ratio,
    one for µs a ply."""
    return template.replace("%s", "%.2f" if column in RATIO_COLUMNS else "%.1f")


def ratio(args, work):
    """The arena and fastchess by turns, --alternations times, on identical work; with the
    floor (examples/floor.rs, built), the least a manager can spend on the same moves."""
    if not args.fastchess:
        print("\n## ratio: no fastchess (give --fastchess PATH), skipped")
        return
    floor = os.path.exists(args.floor)
    if not floor:
        print("\n(no %s: `cargo build --release --example floor` adds the floor columns)"
              % args.floor)
    for name in args.ratio_work:
        title, engines, tc, games, nodes = works(args)[name]
        toml = write_toml(work, "ratio-" + name, engines)
        extra = ["--nodes", str(nodes)] if nodes else []
        print("\n## ratio: %s, %d games, concurrency 1, tc %s s, %d alternations\n"
              % (title, games, tc, args.alternations))
        head = ("| round | first | blitz-arena plies | fastchess plies | blitz-arena CPU µs/ply"
                " | fastchess CPU µs/ply | ratio |")
        if floor:
            head += (" floor CPU µs/ply | floor with CPU meter µs/ply | floor / fastchess"
                     " | floor with meter / fastchess |")
        print(head)
        print("|---" * (head.count("|") - 1) + "|")
        rounds = []
        for i in range(args.alternations):
            # Each tool goes first in every other round: a drift in the load falls on both.
            order = ("arena", "fastchess") if i % 2 == 0 else ("fastchess", "arena")
            run = "ratio-%s-%d" % (name, i + 1)
            done = {}
            for tool in order:
                if tool == "arena":
                    done[tool] = arena_run(args, work, run, toml,
                                           [engines[0][0], engines[1][0]], arena_tc(tc),
                                           games, 1, extra)
                else:
                    done[tool] = other_run(args, "fastchess", work, run, engines, tc, games,
                                           1, nodes)
            a, f = done["arena"], done["fastchess"]
            # CPU times come in ticks of the kernel's clock (10 ms): a round too short to
            # have one gives no ratio.
            fcpu = f.per_ply(f.cpu) if f.cpu and f.plies else float("nan")
            row = [a.per_ply(a.cpu), fcpu, a.per_ply(a.cpu) / fcpu]
            if floor:
                games_file = floor_games(a.out, os.path.join(work, run + "-floor.txt"))
                bare = floor_run(args, work, run, a, games_file, engines, tc, nodes, False)
                metered = floor_run(args, work, run, a, games_file, engines, tc, nodes, True)
                row += [bare.per_ply(bare.cpu), metered.per_ply(metered.cpu)]
                row += [row[3] / fcpu, row[4] / fcpu]
            if a.cpu and f.cpu:
                rounds.append(row)
            print("| %d | %s | %d | %d | " % (
                i + 1, "blitz-arena" if order[0] == "arena" else "fastchess", a.plies,
                f.plies) + " | ".join(ratio_cell(k, "%s") % v for k, v in enumerate(row))
                + " |")
            sys.stdout.flush()
        if not rounds:
            print("\nratio %s: no round was long enough to measure" % name)
            continue
        cols = [spread([r[k] for r in rounds]) for k in range(len(rounds[0]))]
        print("| median (range) | | | | " + " | ".join(
            ratio_cell(k, "%s (%s-%s)") % c for k, c in enumerate(cols)) + " |")
        rm, rlo, rhi = cols[2]
        print("\nratio %s: median %.2f, range %.2f-%.2f over %d alternations"
              % (name, rm, rlo, rhi, len(rounds)))
        if floor:
            print("floor %s: median %.2f of fastchess bare, %.2f with the CPU meter"
                  % (name, cols[5][0], cols[6][0]))
        sys.stdout.flush()


def arena_instant_toml(args, work, name):
    """An engines file with `instant1` and `instant2`: the arena's own `instant` engine."""
    toml = os.path.join(work, name + ".toml")
    with open(toml, "w") as f:
        for n in ("instant1", "instant2"):
            f.write('[engines.%s]\ncmd = "%s"\nargs = ["engine", "instant"]\n'
                    % (n, os.path.abspath(args.arena)))
    return toml


def sweep(args, work):
    toml = arena_instant_toml(args, work, "sweep")
    print("\n## concurrency sweep: blitz-arena, instant engines, tc 2s+20ms, "
          "--inject-flag 0.5\n")
    print("| concurrency | games | plies | arena CPU µs/ply | wall gap µs/ply"
          " | losses on time (games without injection) | flag detection |")
    print("|---|---|---|---|---|---|---|")
    tails = {}
    for c in args.concurrency:
        games = max(args.sweep_games, 2 * c)
        for run in range(args.sweep_runs):
            r = arena_run(args, work, "sweep%d-%d" % (c, run), toml, ["instant1", "instant2"],
                          "2s+20ms", games, c, ["--inject-flag", "0.5"])
            print("| %d | %d | %d | %.1f | %s | %d | %s |" % (
                c, r.games, r.plies, r.per_ply(r.cpu), r.extra.replace("gap ", ""), r.losses,
                r.flags.replace("flag detection: ", "")))
            sys.stdout.flush()
            p99 = re.search(r"99th percentile ([\d.]+) ms", r.flags)
            if p99:
                tails.setdefault(c, []).append(float(p99.group(1)))
    if args.sweep_runs > 1:
        # One run's tail moves with the machine: the median of several settles.
        print("\n| concurrency | runs | flag detection, 99th percentile: median (range) |")
        print("|---|---|---|")
        for c, p99s in tails.items():
            print("| %d | %d | %.1f ms (%.1f-%.1f) |" % (
                c, len(p99s), statistics.median(p99s), min(p99s), max(p99s)))


def length(args, work):
    """CPU per move at N games and at 4N: does a game cost more late in a long run?"""
    toml = arena_instant_toml(args, work, "length")
    print("\n## run length: blitz-arena, instant engines in games of 8 plies, concurrency 2, "
          "an SPRT that never decides\n")
    print("| games | plies | arena CPU µs/ply |")
    print("|---|---|---|")
    per_ply = []
    for games in (args.length_games, 4 * args.length_games):
        r = arena_run(args, work, "length%d" % games, toml, ["instant1", "instant2"],
                      "10s+0.1s", games, 2,
                      ["--max-moves", "4", "--sprt", "elo0=-1,elo1=1,alpha=0.0001,beta=0.0001"])
        per_ply.append(r.per_ply(r.cpu))
        print("| %d | %d | %.1f |" % (r.games, r.plies, per_ply[-1]))
        sys.stdout.flush()
    # CPU time comes in the kernel's ticks: a short run may show none.
    ratio_text = ("%.2f" % (per_ply[1] / per_ply[0]) if per_ply[0] > 0
                  else "n/a (the shorter run used less than a tick of CPU)")
    print("\nCPU a move at %d games over %d: %s" % (
        4 * args.length_games, args.length_games, ratio_text))


def growth(args, work):
    """Wall time from each bestmove to the next go, by ply, from the events."""
    toml = os.path.join(work, "growth.toml")
    with open(toml, "w") as f:
        # Seeded random movers: long games (hundreds of plies), the same on every run.
        for n, seed in (("random1", 1), ("random2", 2)):
            f.write('[engines.%s]\nbuiltin = "random"\noptions = { Seed = %d }\n' % (n, seed))
    r = arena_run(args, work, "growth", toml, ["random1", "random2"], "60s+0s",
                  args.growth_games, 1)
    by_ply = {}
    for line in open(os.path.join(r.out, "events.jsonl")):
        last, ply = None, 0
        for e in json.loads(line)["events"]:
            if e["event"] in ("move", "illegal-move"):
                last, ply = e["t_us"], ply + 1
            elif e["event"] == "go" and last is not None:
                by_ply.setdefault(ply, []).append(e["t_us"] - last)
                last = None
    print("\n## growth: wall µs between bestmove and the next go, by ply "
          "(blitz-arena, seeded random movers, concurrency 1)\n")
    print("| plies | gaps | median µs | mean µs |")
    print("|---|---|---|---|")
    for lo, hi in ((1, 50), (51, 150), (151, 250), (251, 350), (351, 10**6)):
        gaps = [g for p in range(lo, min(hi, max(by_ply, default=0)) + 1)
                for g in by_ply.get(p, [])]
        if gaps:
            print("| %d-%s | %d | %.0f | %.0f |" % (lo, hi if hi < 10**6 else "", len(gaps),
                                                  statistics.median(gaps),
                                                  statistics.fmean(gaps)))


# (label, function) for the instructions table: inclusive counts of these functions.
PARTS = [
    ("the games (game loop, engines' I/O, live referee)", "blitz_arena::game::play::{{closure}}"),
    ("  the live referee", "blitz_arena::game::Game::record"),
    ("the engines' output, read and split on the game's thread",
     "blitz_arena::engine::pipes::direct::Shared::read_with"),
    ("the dead-position test (every caller)", "blitz_arena::rules::material::is_dead_given"),
    ("  chasolver itself", "chasolver::is_unwinnable_fast"),
    ("report.html", "blitz_arena::report::html::HtmlReport::add"),
    ("  its re-rulings under every ruleset", "blitz_arena::game::rerule::rerule"),
    ("games.pgn, events.jsonl, games.csv", "blitz_arena::report::results::Rendered::of"),
    ("  the PGN", "blitz_arena::report::pgn::game_pgn"),
    ("  the event record (JSON)", "blitz_arena::report::results::events_line"),
]


def callgrind(argv, cwd, name, required=True):
    """Runs argv under callgrind (its own process only, not the engines it starts); returns
    callgrind_annotate's inclusive listing and the program's total instructions. A run that
    fails stops the benchmark, or (not `required`) is said and gives None."""
    data = os.path.join(cwd, name + ".callgrind")
    log = os.path.join(cwd, name + ".log")
    with open(log, "wb") as f:
        code = subprocess.call(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + data,
                                *argv], cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
    if code != 0:
        why = "%s under callgrind failed (exit %d), see %s" % (name, code, log)
        if code in (-4, 132) or b"SIGILL" in open(log, "rb").read():
            why += (": valgrind cannot run its instructions (a -march=native build: build it "
                    "for plain x86-64, fastchess with make NATIVE=-march=x86-64)")
        if required:
            sys.exit(why)
        print("\n%s; its count is left out" % why)
        return None
    # Every function (--threshold=100): a small part is still a part, found by its name.
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", data],
                          capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"([\d,]+) \([\d.]+%\)\s+PROGRAM TOTALS", text).group(1)
                .replace(",", ""))
    return text, total


def instructions(args, work):
    """Instructions a move of the arena process (and fastchess's), from callgrind."""
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        print("\n## instructions: valgrind is not installed, skipped")
        return
    for name in args.cg_work:
        title, engines, tc, _, nodes = works(args)[name]
        games = args.cg_games if name == "instant" else args.cg_sf_games
        count_instructions(args, work, name, title, engines, tc, games, nodes)


def count_instructions(args, work, name, title, engines, tc, games, nodes):
    toml = write_toml(work, "cg-" + name, engines)
    runs = []  # a run's (plies, instructions a move in all, {function: instructions a move})
    outs = []  # each run's results folder
    for run in range(args.cg_runs):
        label = "cg-%s-arena" % name + ("-%d" % (run + 1) if args.cg_runs > 1 else "")
        out = os.path.join(work, label)
        outs.append(out)
        argv = [args.arena, "gauntlet", engines[0][0], "--vs", engines[1][0], "--engines", toml,
                "--tc", arena_tc(tc), "--games", str(games), "--concurrency", "1",
                "--openings", args.book, "--openings-order", "sequential", "--seed", "1",
                "--out", out] + (["--nodes", str(nodes)] if nodes else [])
        text, total = callgrind(argv, work, label)
        plies = sum(int(r["plies"]) for r in csv.DictReader(open(os.path.join(out, "games.csv"))))
        found = {}
        for line in text.splitlines():
            m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+\S*?:(.+?)(?: \[.*\])?$", line)
            if m:
                function, count = m.group(2), int(m.group(1).replace(",", ""))
                found[function] = max(found.get(function, 0), count / plies)
        runs.append((plies, total / plies, found))
    # Each run plays the same games (seeded, one at a time), but with an engine that prints
    # while it thinks (Stockfish) its lines fall into the arena's reads differently from run
    # to run, and the count moves by a kilo-instruction a move or so: the median of the runs.
    plies = runs[0][0]
    totals = sorted(t for _, t, _ in runs)
    arena = statistics.median(totals)
    spread = " (%.1f-%.1fk)" % (totals[0] / 1000, totals[-1] / 1000) if len(runs) > 1 else ""
    print("\n## instructions a move: blitz-arena under callgrind, %s, %d games, "
          "%s plies (the arena process only; the kernel's work is not counted)%s\n"
          % (title, games, "/".join(sorted({str(p) for p, _, _ in runs})),
             "; the median of %d runs" % len(runs) if len(runs) > 1 else ""))
    print("| part | instructions a move |")
    print("|---|---|")
    print("| all of the arena process | %.1fk%s |" % (arena / 1000, spread))
    for label, function in PARTS:
        part = statistics.median(found.get(function, 0) for _, _, found in runs)
        print("| %s | %.1fk |" % (label.replace("  ", "&nbsp;&nbsp;"), part / 1000))
    if os.path.exists(args.floor):
        # The floor on the first run's games: what any manager spends a move in user space.
        games_file = floor_games(outs[0], os.path.join(work, "cg-%s-floor.txt" % name))
        floor = []
        for meter in (False, True):
            argv = floor_argv(args, games_file, engines, tc, nodes, meter)
            _, total = callgrind(argv, work, "cg-%s-floor%s" % (name, "-meter" * meter))
            floor.append(total / plies)
        print("\n| floor (examples/floor.rs, the same games) | instructions a move |")
        print("|---|---|")
        print("| bare | %.1fk |" % (floor[0] / 1000))
        print("| with the CPU meter | %.1fk |" % (floor[1] / 1000))
        print("\ninstructions %s: blitz-arena %.1fk a move, the floor %.1fk (%.1fk with the "
              "CPU meter)" % (name, arena / 1000, floor[0] / 1000, floor[1] / 1000))
    else:
        print("\n(no %s: `cargo build --release --example floor` adds the floor's count)"
              % args.floor)
    if args.fastchess:
        cwd = tempfile.mkdtemp(prefix="cg-fastchess-", dir=work)
        pgn = os.path.join(cwd, "games.pgn")
        argv = other_argv(args, "fastchess", engines, tc, games, 1, nodes, pgn)
        counted = callgrind(argv, cwd, "cg-%s-fastchess" % name, required=False)
        if counted is None:
            sys.stdout.flush()
            return
        _, fc_total = counted
        fc_plies = sum(p for p, _ in pgn_games(pgn))
        fc = fc_total / fc_plies
        print("\n| tool | plies | instructions a move |\n|---|---|---|")
        print("| blitz-arena | %d | %.1fk |" % (plies, arena / 1000))
        print("| fastchess | %d | %.1fk |" % (fc_plies, fc / 1000))
        print("\ninstructions %s: blitz-arena / fastchess %.2f" % (name, arena / fc))
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(HERE)
    p.add_argument("--arena", default=os.path.join(root, "target/release/blitz-arena"))
    p.add_argument("--book", default=os.path.join(HERE, "openings.epd"))
    p.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    p.add_argument("--fastchess", default=shutil.which("fastchess"))
    p.add_argument("--cutechess", default=shutil.which("cutechess-cli"))
    p.add_argument("--floor", default=os.path.join(root, "target/release/examples/floor"),
                   help="ratio: the floor manager (cargo build --release --example floor)")
    p.add_argument("--engine", choices=("builtin", "python"), default="builtin")
    p.add_argument("--only", default="instant,sf2000,sftc,sweep,growth")
    p.add_argument("--games", type=int, default=200, help="instant comparison")
    p.add_argument("--sf-games", type=int, default=20, help="Stockfish at 2000 nodes")
    p.add_argument("--sftc-games", type=int, default=100, help="Stockfish at 1+0.01")
    p.add_argument("--sweep-games", type=int, default=8, help="at least, per concurrency")
    p.add_argument("--sweep-runs", type=int, default=1,
                   help="sweep: runs at each concurrency; above 1, the median of their tails")
    p.add_argument("--growth-games", type=int, default=20)
    p.add_argument("--length-games", type=int, default=6000, help="length: the shorter run")
    p.add_argument("--concurrency", default="1,2,4,8,16,32,64")
    p.add_argument("--cg-games", type=int, default=100, help="instructions (callgrind)")
    p.add_argument("--cg-sf-games", type=int, default=10, help="instructions, Stockfish")
    p.add_argument("--cg-work", default="instant", help="instructions: instant,sf2000")
    p.add_argument("--cg-runs", type=int, default=1,
                   help="instructions: runs of each; above 1, the median and range")
    p.add_argument("--alternations", type=int, default=5, help="ratio: rounds of each tool")
    p.add_argument("--ratio-work", default="instant,sf2000", help="ratio: instant,sf2000")
    p.add_argument("--quick", action="store_true", help="a tiny run of each configuration")
    p.add_argument("--keep", help="keep the runs' folders in this directory")
    p.add_argument("--pin", help="run every measured command on these CPUs (0 or 0,1)")
    args = p.parse_args()
    args.arena = os.path.abspath(args.arena)
    args.book = os.path.abspath(args.book)
    for tool in ("fastchess", "cutechess"):
        if getattr(args, tool) and os.sep in getattr(args, tool):
            setattr(args, tool, os.path.abspath(getattr(args, tool)))
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    args.ratio_work = args.ratio_work.split(",")
    args.cg_work = args.cg_work.split(",")
    for work_name in args.ratio_work + args.cg_work:
        if work_name not in ("instant", "sf2000"):
            sys.exit("unknown work %s: instant or sf2000" % work_name)
    if args.quick:
        args.games = args.sf_games = args.sftc_games = args.sweep_games = args.growth_games = 2
        args.cg_games = args.cg_sf_games = 2
        args.length_games = 4
        args.alternations = min(args.alternations, 2)
        args.concurrency = [1, 2]
    if not os.access(args.arena, os.X_OK):
        sys.exit("no arena at %s: cargo build --release, or give --arena" % args.arena)
    only = set(args.only.split(","))
    unknown = only - {"instant", "sf2000", "sftc", "ratio", "sweep", "growth", "length",
                      "instructions"}
    if unknown:
        sys.exit("unknown configuration %s" % ", ".join(sorted(unknown)))
    work = args.keep or tempfile.mkdtemp(prefix="blitz-overhead-")
    os.makedirs(work, exist_ok=True)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print("# blitz-arena overhead, %s, %d CPUs, load average %s" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), " ".join(load)))
    if args.pin:
        global PIN
        try:
            PIN = {int(c) for c in args.pin.split(",")}
        except ValueError:
            sys.exit("--pin %s: give CPU numbers, as 0 or 0,1" % args.pin)
        allowed = os.sched_getaffinity(0)
        if not PIN <= allowed:
            sys.exit("--pin %s: this process may run only on CPUs %s"
                     % (args.pin, ",".join(map(str, sorted(allowed)))))
        print("pinned: every measured command and its engines on CPU %s" % args.pin)
    print("fastchess: %s; cutechess-cli: %s" % (args.fastchess or "not on PATH",
                                               args.cutechess or "not on PATH"))
    try:
        if "instant" in only:
            compare(args, work, "instant", "instant engine (%s)" % args.engine,
                    instant_engines(args), "60+0", args.games, 1)
        if "sf2000" in only:
            compare(args, work, "sf2000", "Stockfish at 2000 nodes", stockfish_engines(args),
                    "60+0", args.sf_games, 1, nodes=2000)
        if "sftc" in only:
            compare(args, work, "sftc", "Stockfish at 1+0.01", stockfish_engines(args),
                    "1+0.01", args.sftc_games, 2)
        if "ratio" in only:
            ratio(args, work)
        if "sweep" in only:
            sweep(args, work)
        if "growth" in only:
            growth(args, work)
        if "length" in only:
            length(args, work)
        if "instructions" in only:
            instructions(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    with open("/proc/loadavg") as f:
        print("\nload average at the end: %s" % " ".join(f.read().split()[:3]))


if __name__ == "__main__":
    main()
