//! Texts a player brings, and the day's race (docs/genda.md).

pub mod hash;
