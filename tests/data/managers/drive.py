# blitz-arena's own (not copied): runs OpenBench's and fishtest's parsing functions, copied
# beside this file, over a match runner's recorded stdout (and stderr), as their clients run
# them over a live process, and prints what they counted as one JSON object.
#
#   python3 drive.py STDOUT STDERR NEW BASE GAMES
#
# STDERR may be "-" (none). NEW and BASE are the engines' names (the first engine's point of
# view, as fishtest's `New` and `Base`), GAMES the games fishtest's worker asked for.

import contextlib
import io
import json
import os
import queue
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fishtest_games  # noqa: E402
import openbench_worker  # noqa: E402


def openbench(stdout_path):
    """OpenBench's client: run_and_parse_runner over `cat STDOUT`, its batches summed."""
    batches = queue.Queue()
    with contextlib.redirect_stdout(io.StringIO()):
        openbench_worker.run_and_parse_runner(
            None, "cat " + stdout_path, 0, batches, threading.Event()
        )
    total = {"trinomial": [0, 0, 0], "pentanomial": [0] * 5, "crashes": 0,
             "timelosses": 0, "illegals": 0, "batches": 0}
    while not batches.empty():
        batch = batches.get()
        total["batches"] += 1
        for key in ("trinomial", "pentanomial"):
            total[key] = [a + b for a, b in zip(total[key], batch[key])]
        for key in ("crashes", "timelosses", "illegals"):
            total[key] += batch[key]
    return total


class Stream:
    """A recorded stream read line by line, knowing when it was read to its end."""

    def __init__(self, path):
        self.file = open(path, encoding="ascii") if path != "-" else io.StringIO("")
        self.done = threading.Event()

    def readline(self):
        line = self.file.readline()
        if not line:
            self.done.set()
        return line


class Finished:
    """The process fishtest's worker polls: it has exited once both of its streams were read
    to their end (every line queued), so that no line is lost to the poll's timing."""

    def __init__(self, stdout_path, stderr_path):
        self.stdout = Stream(stdout_path)
        self.stderr = Stream(stderr_path)

    def poll(self):
        if self.stdout.done.is_set() and self.stderr.done.is_set():
            return 0
        return None


def fishtest(stdout_path, stderr_path, new, base, games):
    """fishtest's worker: parse_fastchess_output, with the server answering every update."""
    posted = []
    fishtest_games.post_to_worker_log = lambda *a, **kw: posted.append(a[3])
    fishtest_games.send_api_post_request = lambda *a, **kw: {"task_alive": True}
    result = {"stats": {"wins": 0, "losses": 0, "draws": 0, "crashes": 0,
                        "time_losses": 0, "pentanomial": [0] * 5}}
    pgn_file = {}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            fishtest_games.parse_fastchess_output(
                Finished(stdout_path, stderr_path), new, base, {"task_id": 1}, {}, "",
                "", result, False, games, games, 3600, pgn_file, "run", 1,
            )
        outcome = "ok"
    except fishtest_games.WorkerException as e:
        outcome = "%s: %s" % (type(e).__name__, e.args[0] if e.args else "")
    except AssertionError:
        outcome = "AssertionError"
    return {"stats": result["stats"], "outcome": outcome, "posted": posted,
            "crc": pgn_file.get("CRC")}


if __name__ == "__main__":
    out, err, new, base, games = sys.argv[1:6]
    print(json.dumps({"openbench": openbench(out),
                      "fishtest": fishtest(out, err, new, base, int(games))}))
