//! Syzygy tablebase adjudication (`--tb PATHS`, `--tb-pieces N`), as cutechess-cli and
//! fastchess do it: the moment a move leaves a position the tables hold (no more pieces than
//! `--tb-pieces`, no castling rights), the game ends with the tables' result. The verdict is
//! recorded as an event, and the referee rules it (a flag that fell before it still counts).
//!
//! Only the WDL tables (`*.rtbw`) are needed. They rate a position as if it had just been
//! reached by a capture or a pawn move; that is how a position enters the tables (a capture),
//! so the verdict is exact there. Later in a sequence of quiet moves a win may have become a
//! cursed one as the 50-move count grew: then the DTZ tables (`*.rtbz`), when given, decide;
//! without them the game goes on until the verdict is sure (fastchess probes only right after
//! a capture or pawn move). A draw, a cursed win or a blessed loss stays one as the count grows.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Position};
use shakmaty_syzygy::{Material, Syzygy, Tablebase, Wdl};

use crate::event::{Side, TbVerdict};

/// The fewest pieces a Syzygy table holds (`KQvK`), and the most (7-piece tables).
pub const PIECES: std::ops::RangeInclusive<usize> = 3..=7;

/// `--tb` and `--tb-pieces` as a run plans them (`run.json`), so that `--resume` opens the
/// same tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablebaseSpec {
    /// The folders holding the tables, absolute.
    pub paths: Vec<PathBuf>,
    /// Adjudicate positions of at most this many pieces.
    pub pieces: usize,
}

/// Opened tables, shared by every game of a run.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    spec: TablebaseSpec,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("spec", &self.spec)
            .finish()
    }
}

/// `--tb PATHS`: folders separated by `:` or `;` (cutechess uses the platform's separator,
/// fastchess `;`); empty items are skipped.
pub fn split_paths(paths: &str) -> Vec<PathBuf> {
    paths
        .split([':', ';'])
        .filter(|p| !p.trim().is_empty())
        .map(PathBuf::from)
        .collect()
}

/// `--tb PATHS` and `[run] tb` as given: the folders, not yet opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbPaths(pub Vec<PathBuf>);

impl std::str::FromStr for TbPaths {
    type Err = String;
    fn from_str(s: &str) -> Result<TbPaths, String> {
        let paths = split_paths(s);
        if paths.is_empty() {
            return Err(format!(
                "bad --tb {s:?}: give the tables' folders, separated by : or ;"
            ));
        }
        Ok(TbPaths(paths))
    }
}

/// The pieces of a table named by its file stem (`KRvK` holds 3), if it names one.
fn table_pieces(stem: &str) -> Option<usize> {
    let (white, black) = stem.split_once('v')?;
    let pieces = |side: &str| {
        (side.starts_with('K') && side.chars().all(|c| "KQRBNP".contains(c))).then_some(side.len())
    };
    Some(pieces(white)? + pieces(black)?)
}

/// The WDL tables in `dir`: their paths and piece counts. Each must be a readable table file
/// (its header checked now, not in the middle of a game).
fn wdl_tables(dir: &Path) -> Result<Vec<(PathBuf, usize)>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut tables = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.extension().and_then(|e| e.to_str()) != Some(Chess::TBW.ext) {
            continue;
        }
        let Some(pieces) = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(table_pieces)
        else {
            continue;
        };
        let mut magic = [0u8; 4];
        File::open(&path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        if magic != Chess::TBW.magic {
            return Err(format!(
                "{}: not a Syzygy WDL table (its header is wrong)",
                path.display()
            ));
        }
        tables.push((path, pieces));
    }
    Ok(tables)
}

impl Tablebases {
    /// Opens the tables in `paths` (`--tb`), for positions of at most `pieces` pieces (default:
    /// the most any table holds). The error is one line naming the path at fault.
    pub fn open(paths: &[PathBuf], pieces: Option<usize>) -> Result<Tablebases, String> {
        if paths.is_empty() {
            return Err("--tb: no folder given".to_string());
        }
        let mut tables = Tablebase::new();
        let mut most = 0;
        let mut absolute = Vec::new();
        for dir in paths {
            if !dir.is_dir() {
                let why = if dir.exists() {
                    "not a folder"
                } else {
                    "no such folder"
                };
                return Err(format!("--tb: {}: {why}", dir.display()));
            }
            let found = wdl_tables(dir).map_err(|e| format!("--tb: {e}"))?;
            tables
                .add_directory(dir)
                .map_err(|e| format!("--tb: {}: {e}", dir.display()))?;
            most = found.iter().map(|(_, n)| *n).fold(most, usize::max);
            absolute.push(std::path::absolute(dir).unwrap_or_else(|_| dir.clone()));
        }
        if most == 0 {
            let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            return Err(format!(
                "--tb: no Syzygy WDL table (*.rtbw) in {}",
                list.join(", ")
            ));
        }
        Ok(Tablebases {
            tables,
            spec: TablebaseSpec {
                paths: absolute,
                pieces: pieces.unwrap_or(most),
            },
        })
    }

    /// Opens the tables a run planned.
    pub fn from_spec(spec: &TablebaseSpec) -> Result<Tablebases, String> {
        Tablebases::open(&spec.paths, Some(spec.pieces))
    }

    pub fn spec(&self) -> &TablebaseSpec {
        &self.spec
    }

    /// What the tables say about `pos`, with its material (`KRvK`); `None` when they cannot
    /// say it for sure: too many pieces, castling rights, no table for it, or a win whose
    /// 50-move count needs the DTZ tables that are not there.
    pub fn probe(&self, pos: &Chess) -> Option<(String, TbVerdict)> {
        if pos.board().occupied().count() > self.spec.pieces || pos.castles().any() {
            return None;
        }
        let mut wdl = self.tables.probe_wdl_after_zeroing(pos).ok()?;
        if pos.halfmoves() > 0 && matches!(wdl, Wdl::Win | Wdl::Loss) {
            // The moves since the last capture or pawn move count towards the 50: only the
            // distance to the next one (DTZ) says whether the win is still in time.
            wdl = self.tables.probe_wdl(pos).ok()?.unambiguous()?;
        }
        let mover = Side::from(pos.turn());
        let verdict = match wdl {
            Wdl::Win => TbVerdict::Win { winner: mover },
            Wdl::Loss => TbVerdict::Win {
                winner: mover.other(),
            },
            Wdl::CursedWin => TbVerdict::CursedWin { winner: mover },
            Wdl::BlessedLoss => TbVerdict::CursedWin {
                winner: mover.other(),
            },
            Wdl::Draw => TbVerdict::Draw,
        };
        Some((Material::from_board(pos.board()).to_string(), verdict))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy")
    }

    use crate::test_support::position as pos;

    fn tables() -> Tablebases {
        Tablebases::open(&[data()], None).unwrap()
    }

    #[test]
    fn paths_split_on_colons_and_semicolons() {
        assert_eq!(
            split_paths("a:b;c::"),
            vec![PathBuf::from("a"), PathBuf::from("b"), PathBuf::from("c")]
        );
    }

    #[test]
    fn table_names_count_their_pieces() {
        assert_eq!(table_pieces("KRvK"), Some(3));
        assert_eq!(table_pieces("KBNvKN"), Some(5));
        assert_eq!(table_pieces("KRvX"), None);
        assert_eq!(table_pieces("README"), None);
    }

    #[test]
    fn the_default_piece_count_is_the_largest_table() {
        assert_eq!(tables().spec().pieces, 5);
    }

    #[test]
    fn verdicts_after_a_capture() {
        let t = tables();
        // Black to move, bare king against king and rook.
        let (material, verdict) = t.probe(&pos("8/8/8/3k4/8/8/1K6/1R6 b - - 0 1")).unwrap();
        assert_eq!(material, "KRvK");
        assert_eq!(
            verdict,
            TbVerdict::Win {
                winner: Side::White
            }
        );
        // Rook against rook.
        let (_, verdict) = t.probe(&pos("r7/8/8/3k4/8/8/1K6/1R6 b - - 0 1")).unwrap();
        assert_eq!(verdict, TbVerdict::Draw);
        // fastchess's cursed win for white: K+B+N against K+N.
        let (material, verdict) = t.probe(&pos("8/8/8/8/8/8/1n5B/2K1N2k w - - 0 1")).unwrap();
        assert_eq!(material, "KBNvKN");
        assert_eq!(
            verdict,
            TbVerdict::CursedWin {
                winner: Side::White
            }
        );
        // The colours swapped: black's cursed win.
        let (material, verdict) = t.probe(&pos("8/8/8/8/8/8/1N5b/2k1n2K b - - 0 1")).unwrap();
        assert_eq!(material, "KNvKBN");
        assert_eq!(
            verdict,
            TbVerdict::CursedWin {
                winner: Side::Black
            }
        );
        // A blessed loss for black to move (after white's best reply above) is white's cursed
        // win.
        let (_, verdict) = t.probe(&pos("8/8/8/8/8/6B1/1n6/2K1N2k b - - 0 1")).unwrap();
        assert_eq!(
            verdict,
            TbVerdict::CursedWin {
                winner: Side::White
            }
        );
    }

    #[test]
    fn no_verdict_outside_the_tables_or_when_unsure() {
        let t = tables();
        // Castling rights.
        assert_eq!(t.probe(&pos("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")), None);
        // Six pieces.
        assert_eq!(t.probe(&pos("4k3/8/8/8/8/8/PP6/R3K3 w - - 0 1")), None);
        // No table for K+Q against K+P.
        assert_eq!(t.probe(&pos("4k3/4p3/8/8/8/8/8/Q3K3 w - - 0 1")), None);
        // A win 20 plies after the last capture, and no DTZ table to tell whether it is in time.
        assert_eq!(t.probe(&pos("8/8/8/3k4/8/8/1K6/1R6 b - - 20 30")), None);
        // A draw stays a draw as the count grows.
        let (_, verdict) = t.probe(&pos("r7/8/8/3k4/8/8/1K6/1R6 b - - 20 30")).unwrap();
        assert_eq!(verdict, TbVerdict::Draw);
        // --tb-pieces 3: four pieces are not adjudicated.
        let three = Tablebases::open(&[data()], Some(3)).unwrap();
        assert_eq!(three.probe(&pos("r7/8/8/3k4/8/8/1K6/1R6 b - - 0 1")), None);
    }

    #[test]
    fn with_dtz_tables_a_win_late_in_the_fifty_moves_is_decided() {
        // KRvK's DTZ table in a second folder: black to move is 28 plies from being mated.
        let t = Tablebases::open(&[data(), data().join("dtz")], None).unwrap();
        let (_, in_time) = t.probe(&pos("8/8/8/3k4/8/8/1K6/1R6 b - - 20 30")).unwrap();
        assert_eq!(
            in_time,
            TbVerdict::Win {
                winner: Side::White
            }
        );
        // 80 plies since the last capture: 28 more pass the 100.
        let (_, too_late) = t.probe(&pos("8/8/8/3k4/8/8/1K6/1R6 b - - 80 60")).unwrap();
        assert_eq!(
            too_late,
            TbVerdict::CursedWin {
                winner: Side::White
            }
        );
    }

    #[test]
    fn bad_paths_are_one_line_errors() {
        let missing = Tablebases::open(&[PathBuf::from("/no/such/tables")], None).unwrap_err();
        assert_eq!(missing, "--tb: /no/such/tables: no such folder");
        let file = data().join("KRvK.rtbw");
        let not_dir = Tablebases::open(std::slice::from_ref(&file), None).unwrap_err();
        assert!(not_dir.ends_with("KRvK.rtbw: not a folder"), "{not_dir}");
        let empty = Tablebases::open(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("src")], None)
            .unwrap_err();
        assert!(empty.starts_with("--tb: no Syzygy WDL table"), "{empty}");
        assert!(!empty.contains('\n'));
    }

    /// The referee's side of it: a game as events, ruled under `ruleset`.
    mod referee {
        use super::*;
        use crate::event::{Event, GameResult, SearchInfo, Termination};
        use crate::rules::{Ending, Referee, RefereeSettings, Ruleset, Verdict};

        /// White's king takes the knight on b2: K+R against a bare king.
        const KNIGHT_HANGS: &str = "8/8/8/3k4/8/8/1n6/KR6 w - - 0 1";

        fn mv(t_ms: i64, side: Side, uci: &str) -> Event {
            Event::Move {
                t_us: t_ms * 1000,
                side,
                uci: uci.to_string(),
                think_us: 0,
                clock_us: 0,
                info: SearchInfo::default(),
            }
        }

        fn tb(t_ms: i64, material: &str, verdict: TbVerdict) -> Event {
            Event::Tablebase {
                t_us: t_ms * 1000,
                material: material.to_string(),
                verdict,
            }
        }

        fn flag(t_ms: i64, side: Side) -> Event {
            Event::FlagFall {
                t_us: t_ms * 1000,
                side,
            }
        }

        /// The ending after `events`, if any.
        fn rule(ruleset: Ruleset, fen: &str, events: &[Event]) -> Option<Ending> {
            let settings = RefereeSettings {
                ruleset,
                ..RefereeSettings::default()
            };
            let mut referee = Referee::new(settings, pos(fen), Vec::new());
            let mut ending = None;
            for event in events {
                if let Verdict::End(e) = referee.apply(event) {
                    ending.get_or_insert(e);
                }
            }
            ending
        }

        const WHITE_WINS: TbVerdict = TbVerdict::Win {
            winner: Side::White,
        };

        #[test]
        fn the_tables_verdict_ends_the_game_under_every_ruleset() {
            for ruleset in Ruleset::ALL {
                let events = [mv(100, Side::White, "a1b2"), tb(100, "KRvK", WHITE_WINS)];
                let ending = rule(ruleset, KNIGHT_HANGS, &events).expect("an ending");
                assert_eq!(ending.result, GameResult::WhiteWins, "{ruleset}");
                assert_eq!(ending.termination, Termination::Tablebase, "{ruleset}");
                assert_eq!(ending.rule, "arena: --tb", "{ruleset}");
                assert_eq!(ending.detail, "tablebase: KRvK is a win for white");
            }
        }

        #[test]
        fn a_cursed_win_is_a_draw() {
            let cursed = TbVerdict::CursedWin {
                winner: Side::White,
            };
            let events = [mv(100, Side::White, "a1b2"), tb(100, "KBNvKN", cursed)];
            let ending = rule(Ruleset::Fide, KNIGHT_HANGS, &events).unwrap();
            assert_eq!(ending.result, GameResult::Draw);
            assert_eq!(ending.termination, Termination::Tablebase);
            assert_eq!(
                ending.detail,
                "tablebase: KBNvKN is a cursed win for white: a draw under the 50-move rule"
            );
        }

        #[test]
        fn a_flag_that_fell_before_the_verdict_still_counts() {
            // White's flag fell at 1 s, unnoticed; its move at 1.5 s leaves K+R against K.
            let events = [
                flag(1000, Side::White),
                mv(1500, Side::White, "a1b2"),
                tb(1500, "KRvK", WHITE_WINS),
            ];
            let expect = [
                // H3.1, H10: the flag loses whatever the material.
                (Ruleset::House, GameResult::BlackWins, "H3.1, H10"),
                // A bare king cannot mate: a draw.
                (Ruleset::Generic, GameResult::Draw, "G§2"),
                (Ruleset::Wbca, GameResult::Draw, "WBCA 8f"),
                (Ruleset::Fide, GameResult::Draw, "FIDE A4.3"),
                (Ruleset::Uscf, GameResult::Draw, "USCF 8d"),
                // The server ends the game at the flag, before the move, while black still
                // has its knight (lichess: K+N can mate a king that has a rook).
                (Ruleset::Online, GameResult::BlackWins, "online: flag"),
            ];
            for (ruleset, result, cite) in expect {
                let ending = rule(ruleset, KNIGHT_HANGS, &events).unwrap();
                assert_eq!(
                    (ending.result, ending.termination, ending.rule.as_str()),
                    (result, Termination::Flag, cite),
                    "{ruleset}"
                );
                if ruleset != Ruleset::Online {
                    assert!(
                        ending.detail.starts_with(
                            "white flag fell at 1.000 s; not claimed before the tablebase \
                             adjudication at 1.500 s (KRvK is a win for white): the flag counts"
                        ),
                        "{ruleset}: {}",
                        ending.detail
                    );
                }
            }
        }

        #[test]
        fn both_flags_down_before_the_verdict() {
            // Black's flag fell at 0.5 s, white's at 1 s; both unnoticed.
            let events = [
                flag(500, Side::Black),
                flag(1000, Side::White),
                mv(1500, Side::White, "a1b2"),
                tb(1500, "KRvK", WHITE_WINS),
            ];
            // FIDE: the first flag to fall loses, and white can mate.
            let fide = rule(Ruleset::Fide, KNIGHT_HANGS, &events).unwrap();
            assert_eq!(
                (fide.result, fide.termination, fide.rule.as_str()),
                (
                    GameResult::WhiteWins,
                    Termination::BothFlags,
                    "FIDE Laws 6.9"
                )
            );
            assert!(
                fide.detail.starts_with(
                    "both flags down: black flag fell at 0.500 s, white flag at 1.000 s"
                ),
                "{}",
                fide.detail
            );
            // USCF 8c: both flags down, a draw.
            let uscf = rule(Ruleset::Uscf, KNIGHT_HANGS, &events).unwrap();
            assert_eq!(
                (uscf.result, uscf.termination, uscf.rule.as_str()),
                (GameResult::Draw, Termination::BothFlags, "USCF 8c")
            );
        }

        #[test]
        fn the_event_is_recorded_as_json() {
            let event = tb(1500, "KRvK", WHITE_WINS);
            let json = serde_json::to_string(&event).unwrap();
            assert_eq!(
                json,
                r#"{"event":"tablebase","t_us":1500000,"material":"KRvK","wdl":"win","winner":"white"}"#
            );
            assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), event);
            let draw = serde_json::to_string(&tb(0, "KRvKR", TbVerdict::Draw)).unwrap();
            assert!(
                draw.ends_with(r#""material":"KRvKR","wdl":"draw"}"#),
                "{draw}"
            );
        }
    }
}
