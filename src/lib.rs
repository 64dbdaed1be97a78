//! blitz-arena: UCI engines play real-time blitz against each other, ruled as a blitz arbiter
//! would. The real-time loop (`game`) produces events; the referee (`rules`) rules them; the
//! tournament runs games in parallel and the report module writes what happened.

pub mod app;
pub mod builtin;
pub mod cli;
pub mod clock;
pub mod compat;
pub mod config;
pub mod console;
pub mod decimal;
pub mod engine;
pub mod event;
pub mod files;
pub mod game;
pub mod inject;
pub mod invariants;
pub mod openings;
pub mod pvcheck;
pub mod report;
pub mod rules;
pub mod settings;
pub mod tablebase;
#[cfg(test)]
mod test_support;
pub mod timecontrol;
pub mod tournament;
pub mod vocabulary;
