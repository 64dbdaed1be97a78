#!/usr/bin/env python3
"""Writes benches/openings.epd: 50 balanced 8-ply openings for the overhead harness.

How it was made (run once; the file is committed so every run plays the same games):
8 plies from the start position, each a uniformly random legal move (seeded), kept when
Stockfish at depth 12 scores the position within 50 centipawns and it is new.
Needs python-chess and Stockfish: python3 benches/make_openings.py [/usr/games/stockfish]
"""
import random
import sys

import chess
import chess.engine

path = sys.argv[1] if len(sys.argv) > 1 else "/usr/games/stockfish"
rng = random.Random(20261123)
seen = set()
lines = []
with chess.engine.SimpleEngine.popen_uci(path) as engine:
    while len(lines) < 50:
        board = chess.Board()
        for _ in range(8):
            board.push(rng.choice(list(board.legal_moves)))
        if board.is_game_over():
            continue
        epd = board.epd()
        if epd in seen:
            continue
        score = engine.analyse(board, chess.engine.Limit(depth=12))["score"].white()
        if score.is_mate() or abs(score.score()) > 50:
            continue
        seen.add(epd)
        lines.append(epd)
with open(__file__.rsplit("/", 1)[0] + "/openings.epd", "w") as f:
    f.write("".join(line + "\n" for line in lines))
