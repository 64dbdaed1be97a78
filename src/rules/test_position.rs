//! The position of a FEN, for the rules' tests: the library's one test helper for it.

pub(crate) use crate::test_support::position;
