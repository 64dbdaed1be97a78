//! blitz-arena: UCI engines play real-time blitz against each other, ruled as a blitz arbiter
//! would. See DESIGN.md for the architecture: the real-time loop produces events, the referee
//! rules them.

pub mod event;
pub mod rules;
pub mod timecontrol;
