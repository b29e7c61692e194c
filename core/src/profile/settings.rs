//! The player's settings (docs/profile.md): what each one may be, and its default.
//!
//! Every field has a default, so a stored or received record that lacks a field (an
//! older server, a newer one's absent choice) still reads.

use crate::game::mode::Mode;
use serde::{Deserialize, Serialize};
use std::ops::RangeInclusive;

/// The prompt's font sizes a player may pick, in CSS pixels.
pub const FONT_SIZES: RangeInclusive<u8> = 14..=32;
/// The most grapheme clusters an input-method label may have ("" means none).
pub const INPUT_METHOD_MAX_CHARS: usize = 16;

/// The colour scheme.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Follow the system's light or dark preference.
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The stable id used on the wire and as the page's `data-theme`.
    pub fn id(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// How the caret in the prompt is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Caret {
    /// A thin bar before the next character.
    #[default]
    Line,
    /// The next character highlighted.
    Block,
    /// A line under the next character.
    Underline,
}

impl Caret {
    pub const ALL: [Caret; 3] = [Caret::Line, Caret::Block, Caret::Underline];

    /// The stable id used on the wire and as the page's `data-caret`.
    pub fn id(self) -> &'static str {
        match self {
            Caret::Line => "line",
            Caret::Block => "block",
            Caret::Underline => "underline",
        }
    }
}

/// What a typist sets once and expects on every device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub theme: Theme,
    pub caret: Caret,
    /// A click on every keypress.
    pub sound: bool,
    /// The prompt's font size, in CSS pixels, within [`FONT_SIZES`].
    pub font_size: u8,
    /// The mode the page opens in.
    pub preferred_mode: Mode,
    /// The input method the player types 中文 with (键道, 小鹤双拼, 五笔…), shown beside
    /// their 中文 results; empty for none.
    pub input_method: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            theme: Theme::System,
            caret: Caret::Line,
            sound: false,
            font_size: 20,
            preferred_mode: Mode::Time,
            input_method: String::new(),
        }
    }
}
