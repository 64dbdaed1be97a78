# Copied, unchanged, from fishtest (https://github.com/official-stockfish/fishtest), file
# worker/games.py at commit b8eecff220b562a0dc2c4e68d1fa02521e06d72c: the function the worker
# reads fastchess's stdout and stderr with (parse_fastchess_output, lines 1033-1323) and what
# it calls from the same file (the exception classes, lines 50-69; str_signal and
# format_returncode, lines 112-129; enqueue_output, lines 1028-1030; UPDATE_RETRY_TIME,
# line 86), with the imports they use. fishtest is licensed under the GNU General Public
# License, version 3 (GPL-3.0), as blitz-arena is. Test data only: tests/common/managers.rs
# runs this function over recorded and live output, giving it the two functions that talk to
# the server (send_api_post_request, post_to_worker_log); nothing of it is part of blitz-arena.

import copy
import re
import signal
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from queue import Empty, Queue

UPDATE_RETRY_TIME = 15.0


class WorkerException(Exception):
    def __new__(cls, msg, e=None):
        if e is not None and isinstance(e, WorkerException):
            # Note that this forwards also instances of
            # subclasses of WorkerException, e.g.
            # FatalException.
            return e
        else:
            return super().__new__(cls, msg)

    def __init__(self, *args, **kw):
        pass


class FatalException(WorkerException):
    pass


class RunException(WorkerException):
    pass


def str_signal(signal_):
    try:
        return signal.Signals(signal_).name
    except (ValueError, AttributeError):
        return f"SIG<{signal_}>"


def format_returncode(r):
    if r < 0:
        return str_signal(-r)
    elif r == 0:
        return "EXIT_SUCCESS"
    elif r == 1:
        return "EXIT_FAILURE"
    elif r < 256:
        return str(r)
    else:
        return str(hex(r))


def enqueue_output(stream, queue):
    for line in iter(stream.readline, ""):
        queue.put(line)


def parse_fastchess_output(
    p,
    new_name_long,
    base_name_long,
    current_state,
    worker_info,
    password,
    remote,
    result,
    spsa_tuning,
    games_to_play,
    batch_size,
    tc_limit,
    pgn_file,
    run_id,
    task_id,
):
    finished_task_message = (
        "The server told us that no more games are needed for the current task."
    )

    official_release_shas = (
        "e0bfc4b69bbe928d6f474a46560bcc3b3f6709aa",  # sf_17
        "03e27488f3d21d8ff4dbf3065603afa21dbd0ef3",  # sf_17.1
        "cb3d4ee9b47d0c5aae855b12379378ea1439675c",  # sf_18
        "43a2be018606176d91f612e48a753bd6c8ed6cf7",  # used for SF18 PTs
    )

    def is_official_release(name):
        return any(sha in name for sha in official_release_shas)

    def shorten_hash(match):
        word = match.group(0).split("-")
        return "-".join([word[0], word[1][:10]])

    hash_pattern = re.compile(r"(Base|New)-[a-f0-9]+")
    base_name = hash_pattern.sub(shorten_hash, base_name_long)
    new_name = hash_pattern.sub(shorten_hash, new_name_long)
    release_names = frozenset(
        hash_pattern.sub(shorten_hash, name)
        for name in (base_name_long, new_name_long)
        if is_official_release(name)
    )

    saved_stats = copy.deepcopy(result["stats"])

    # patterns used to obtain fastchess WLD and ptnml results from the following block of info:
    # --------------------------------------------------
    # Results of New-e443b2459e vs Base-e443b2459e (0.601+0.006, 1t, 16MB, UHO_Lichess_4852_v1.epd):
    # Elo: -9.20 +/- 20.93, nElo: -11.50 +/- 26.11
    # LOS: 19.41 %, DrawRatio: 42.35 %, PairsRatio: 0.88
    # Games: 680, Wins: 248, Losses: 266, Draws: 166, Points: 331.0 (48.68 %)
    # Ptnml(0-2): [43, 61, 144, 55, 37], WL/DD Ratio: 4.76
    # --------------------------------------------------
    pattern_WLD = re.compile(
        r"Games: ([0-9]+), Wins: ([0-9]+), Losses: ([0-9]+), Draws: ([0-9]+), Points: ([0-9.]+) \("
    )
    pattern_ptnml = re.compile(
        r"Ptnml\(0-2\): \[([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+)\]"
    )
    fastchess_WLD_results = None
    fastchess_ptnml_results = None
    patterns_fastchess_error = (
        # E.g. "Warning; New-SHA doesn't have option ThreatBySafePawn"
        re.compile(r"Warning;.*doesn't have option"),
        # E.g. "Warning; Invalid value for option P: -354"
        re.compile(r"Warning; Invalid value for option"),
        re.compile(r"Warning; Failed to set.*option"),
        re.compile(r"Warning; No info line available to extract score from engine"),
        # E.g. "Warning; Illegal move <none> played by New-SHA"
        re.compile(r"Warning; Illegal move"),
        re.compile(r"Warning; Could not extract score from engine"),
        re.compile(r"Warning; Illegal PV move"),
        re.compile(r"Warning; Move does not match uci move format"),
        re.compile(r"Warning; PV continues after checkmate"),
        re.compile(r"Warning; PV continues after stalemate"),
        re.compile(r"Warning; PV continues after threefold"),
        re.compile(r"Warning; PV continues after fifty-move rule"),
        re.compile(r"Warning; Incomplete mating PV"),
        re.compile(r"Warning; Too long mating PV"),
        re.compile(r"Warning; Mating PV does not end with checkmate"),
        re.compile(r"Warning; Bestmove does not match beginning of last PV"),
        # E.g. "Warning; Sign mismatch in mate scores 3 and 1 from New-SHA (Black) and Base-SHA (White)"
        re.compile(r"Warning; Sign mismatch in mate scores"),
    )
    patterns_fastchess_warning = (
        # These warnings may indicate an engine crash, which may be hw related.
        re.compile(r"Warning; Engine .* is not responsive"),
        re.compile(r"Warning; Engine .* didn't respond"),
        re.compile(r"Warning; No output from"),
        re.compile(r"Warning; No bestmove found from"),
    )

    q = Queue()
    t_output = threading.Thread(target=enqueue_output, args=(p.stdout, q), daemon=True)
    t_output.start()
    t_error = threading.Thread(target=enqueue_output, args=(p.stderr, q), daemon=True)
    t_error.start()

    end_time = datetime.now(timezone.utc) + timedelta(seconds=tc_limit)
    print(f"TC limit {tc_limit} End time: {end_time}")

    num_games_updated = 0
    count_fastchess_warnings = {}
    while datetime.now(timezone.utc) < end_time:
        if current_state["task_id"] is None:
            # This task is no longer necessary.
            # Error message has already been printed.
            return False
        try:
            line = q.get_nowait().strip()
        except Empty:
            returncode = p.poll()
            if returncode is not None:
                if returncode != 0:
                    raise WorkerException(
                        "Fastchess failed with error code "
                        f"{format_returncode(returncode)}"
                    )
                break
            time.sleep(0.1)
            continue

        line = hash_pattern.sub(shorten_hash, line)
        print(line, flush=True)

        # Do we have a pgn crc?
        if "has CRC32:" in line:
            pgn_file["CRC"] = line.split()[-1]

        # Have we reached the end of the match? Then just exit.
        if "Finished match" in line:
            if num_games_updated == games_to_play:
                print("Finished match cleanly.")
            else:
                raise WorkerException(
                    f"Finished match uncleanly {num_games_updated} vs. required {games_to_play}."
                )

        engine_names = frozenset(name for name in (base_name, new_name) if name in line)

        # Check line for fastchess errors, exempting official releases.
        if (
            any(pattern.search(line) for pattern in patterns_fastchess_error)
            and not engine_names & release_names
        ):
            message = f"fastchess says: '{line}'"
            raise RunException(message)

        # Check line for fastchess warnings, and post warnings that do not come
        # from official releases to the event log.
        # Post only the first warning per pattern and engine, followed by an exponential count.
        for pattern in patterns_fastchess_warning:
            if not pattern.search(line) or engine_names & release_names:
                continue

            count, exponential = count_fastchess_warnings.get(
                (pattern, engine_names), (0, 1)
            )
            count += 1

            if count == exponential:
                message = (
                    f"fastchess says: '{line}'"
                    if count == 1
                    else f"fastchess has so far said {count} times: '{pattern.pattern}' for {('+'.join(sorted(engine_names)) or 'None')}"
                )
                post_to_worker_log(
                    worker_info,
                    password,
                    remote,
                    message,
                    run_id=run_id,
                    task_id=task_id,
                )
                exponential *= 2

            count_fastchess_warnings[(pattern, engine_names)] = (count, exponential)

        # Parse line like this:
        # Finished game 1 (stockfish vs base): 0-1 {White disconnects}
        if "disconnect" in line or "stall" in line:
            result["stats"]["crashes"] += 1

        if "on time" in line or "timeout" in line:
            result["stats"]["time_losses"] += 1

        # fastchess WLD and pentanomial output parsing.
        m = pattern_WLD.search(line)
        if m:
            try:
                fastchess_WLD_results = {
                    "games": int(m.group(1)),
                    "wins": int(m.group(2)),
                    "losses": int(m.group(3)),
                    "draws": int(m.group(4)),
                    "points": float(m.group(5)),
                }
            except Exception as e:
                raise WorkerException(
                    f"Failed to parse WLD line: {line} leading to:\n{e}"
                )

        m = pattern_ptnml.search(line)
        if m:
            try:
                fastchess_ptnml_results = [int(m.group(i)) for i in range(1, 6)]
            except Exception as e:
                raise WorkerException(
                    f"Failed to parse ptnml line: {line} leading to:\n{e}"
                )

        # If we have parsed the block properly let's update results.
        if (fastchess_ptnml_results is not None) and (
            fastchess_WLD_results is not None
        ):
            result["stats"]["pentanomial"] = [
                fastchess_ptnml_results[i] + saved_stats["pentanomial"][i]
                for i in range(5)
            ]

            result["stats"]["wins"] = (
                fastchess_WLD_results["wins"] + saved_stats["wins"]
            )
            result["stats"]["losses"] = (
                fastchess_WLD_results["losses"] + saved_stats["losses"]
            )
            result["stats"]["draws"] = (
                fastchess_WLD_results["draws"] + saved_stats["draws"]
            )

            if spsa_tuning:
                spsa = result["spsa"]
                spsa["wins"] = fastchess_WLD_results["wins"]
                spsa["losses"] = fastchess_WLD_results["losses"]
                spsa["draws"] = fastchess_WLD_results["draws"]

            num_games_finished = fastchess_WLD_results["games"]

            assert (
                2 * sum(result["stats"]["pentanomial"])
                == result["stats"]["wins"]
                + result["stats"]["losses"]
                + result["stats"]["draws"]
            )
            assert num_games_finished == 2 * sum(fastchess_ptnml_results)
            assert num_games_finished <= num_games_updated + batch_size
            assert num_games_finished <= games_to_play

            fastchess_ptnml_results = None
            fastchess_WLD_results = None

            # Send an update_task request after a batch is full or if we have played all games.
            if (num_games_finished == num_games_updated + batch_size) or (
                num_games_finished == games_to_play
            ):
                # Attempt to send game results to the server. Retry a few times upon error.
                update_succeeded = False
                for _ in range(5):
                    try:
                        response = send_api_post_request(
                            remote + "/api/update_task", result
                        )
                        if "error" in response:
                            break
                    except Exception as e:
                        print(f"Exception calling update_task:\n{e}", file=sys.stderr)
                        if isinstance(e, FatalException):  # signal
                            raise e
                    else:
                        if not response["task_alive"]:
                            # This task is no longer necessary
                            print(finished_task_message)
                            return False
                        update_succeeded = True
                        num_games_updated = num_games_finished
                        break
                    time.sleep(UPDATE_RETRY_TIME)
                if not update_succeeded:
                    raise WorkerException("Too many failed update attempts.")
                else:
                    current_state["last_updated"] = datetime.now(timezone.utc)

                if (Path(__file__).resolve().parent / "fish.exit").is_file():
                    raise WorkerException("Task stopped by 'fish.exit'.")

    else:
        raise WorkerException(
            f"{datetime.now(timezone.utc)} is past end time {end_time}."
        )

