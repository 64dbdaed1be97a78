//! The run's settings as plain values: how an engine is started, how the watchers behave, how
//! the schedule is cut, the injector's ranges, and the allowed range of every numeric option.
//!
//! These types sit low in the house so that the game, the engine and the tournament can take
//! them without importing the rooms that parse them: `cli` (the command line), `config`
//! (engines.toml) and `compat` (a fastchess command line) turn text into these values, and
//! nothing below them knows where a value came from (docs/architecture.md, "Layers").

pub mod engine;
pub mod injection;
pub mod limits;
pub mod schedule;
pub mod watchers;

pub use engine::{control_character, defined_name, EngineConfig, Launch, BUILTIN_ENGINES};
pub use injection::MsRange;
pub use limits::Limit;
pub use schedule::{OpeningsOrder, Shard};
pub use watchers::{ClaimDraws, FlagNoticeAfter, IllegalNoticeAfter, NoticeAt};
