//! Helpers for the library's unit tests.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// The position `fen` describes (standard castling); panics, naming the FEN, if it is not one.
#[track_caller]
pub(crate) fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}
