#!/usr/bin/env python3
"""A UCI engine that plays its first legal move at once (python-chess), for comparing
tournament managers on the same deterministic work: `benches/overhead.py --engine python`.
Slower than the built-in `blitz-arena engine instant` (it replays the game on every
`position`), but independent of the arena. Needs python-chess."""
import sys

import chess

board = chess.Board()
out = sys.stdout
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    cmd = words[0]
    if cmd == "uci":
        out.write("id name pyinstant\nuciok\n")
    elif cmd == "isready":
        out.write("readyok\n")
    elif cmd == "position":
        rest = line.split(" moves ", 1)
        head = rest[0].split()
        board = chess.Board() if head[1] == "startpos" else chess.Board(" ".join(head[2:]))
        if len(rest) > 1:
            for mv in rest[1].split():
                board.push_uci(mv)
    elif cmd == "go":
        move = next(iter(board.legal_moves), None)
        out.write("bestmove %s\n" % (move.uci() if move else "0000"))
    elif cmd == "quit":
        break
    out.flush()
