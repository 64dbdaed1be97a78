#!/usr/bin/env python3
"""Whether two results folders hold the same games, timings aside.

    python3 benches/same_games.py BEFORE AFTER

For checking that a change to the arena changed no result: run the same seeded games with the
build before and the build after (engines whose moves do not depend on time: the built-in
`random`/`instant` engines, Stockfish with --nodes), then compare. With the seeded roster
benches/seeded.toml, at two games at once and again at four:

    blitz-arena gauntlet r1 --vs r2,r3 --engines benches/seeded.toml --games 16 \
        --concurrency 2 --tc 10s+0.1s --max-moves 60 --seed 42 --inject-illegal 0.2 \
        --inject-flag 0.3 --ruleset fide --out BEFORE Compared, game by game (a
run with concurrency above 1 writes games in the order they finish): events.jsonl without its
times (every key ending in _us or _ms, `started`, the instants a `detail` text quotes),
games.pgn without its comments (the clock times) and date and time tags, games.csv without its
time columns, its CPU-starvation columns (what the machine gave, not what was played) and with
the times of its `injected` column dropped. Exit 0 when all three are the same, 1 otherwise.
"""
import csv
import json
import os
import re
import sys

# Timings, and the speed an engine reports (`nps`: its nodes over its own clock).
TIME_KEY = re.compile(r"(_us|_ms)$|^started$|^nps$")
# The instants a ruling's `detail` text quotes ("black flag fell at 10.501 s", "in 25 ms").
TIME_TEXT = re.compile(r"-?\d+(\.\d+)? (s|ms)\b")


def untimed_text(text):
    return TIME_TEXT.sub("T", text)


def untimed(value):
    if isinstance(value, dict):
        return {k: untimed_text(v) if k == "detail" else untimed(v)
                for k, v in value.items() if not TIME_KEY.search(k)}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def events(folder):
    with open(os.path.join(folder, "events.jsonl")) as f:
        return sorted((untimed(json.loads(line)) for line in f), key=lambda r: r["game"])


def pgn(folder):
    with open(os.path.join(folder, "games.pgn")) as f:
        games = [g for g in re.split(r"\n(?=\[Event )", f.read()) if g.strip()]
    games.sort(key=lambda g: int(re.search(r'\[Round "(\d+)"', g).group(1)))
    text = re.sub(r"\{[^}]*\}", "", "\n".join(games))
    text = re.sub(r'\[(Date|UTCDate|UTCTime) "[^"]*"\]', "", text)
    return text.split()


def rows(folder):
    with open(os.path.join(folder, "games.csv")) as f:
        found = []
        for row in csv.DictReader(f):
            row = {k: v for k, v in row.items() if not re.search(r"_ms|^started$|starved", k)}
            row["injected"] = re.sub(r":\d+", "", row.get("injected", ""))
            row["detail"] = untimed_text(row.get("detail", ""))
            found.append(row)
    return sorted(found, key=lambda r: int(r["game"]))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: same_games.py BEFORE AFTER (two results folders)")
    before, after = sys.argv[1:]
    same = True
    for name, read in (("events.jsonl", events), ("games.pgn", pgn), ("games.csv", rows)):
        a, b = read(before), read(after)
        same &= a == b
        print("%s: %s" % (name, "same" if a == b else "DIFFERENT"))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
