//! The text a player types: whitespace normalised, and never empty.
//!
//! A prompt with nothing to type would end a game before its first keystroke, so the
//! only way to get a [`Prompt`] is through [`Prompt::new`], which refuses one.

use serde::Deserialize;
use std::fmt;

/// Text to type: runs of whitespace collapsed to one space, none at either end, and at
/// least one character.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(try_from = "String")]
pub struct Prompt(String);

impl Prompt {
    /// Normalises `text`, refusing it if nothing but whitespace is left.
    pub fn new(text: &str) -> Result<Prompt, EmptyPrompt> {
        let normalised = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if normalised.is_empty() {
            Err(EmptyPrompt)
        } else {
            Ok(Prompt(normalised))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Prompt {
    type Error = EmptyPrompt;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Prompt::new(&text)
    }
}

/// The text was empty or only whitespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmptyPrompt;

impl fmt::Display for EmptyPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a prompt cannot be empty or only whitespace")
    }
}

impl std::error::Error for EmptyPrompt {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_and_trims_whitespace() {
        let prompt = Prompt::new("  It was\tthe best\n\nof  times. \u{3000}").unwrap();
        assert_eq!(prompt.as_str(), "It was the best of times.");
        assert_eq!(Prompt::new("学而时习之").unwrap().to_string(), "学而时习之");
    }

    #[test]
    fn refuses_nothing_to_type() {
        for blank in ["", " ", "\n\t ", "\u{3000}"] {
            assert_eq!(Prompt::new(blank), Err(EmptyPrompt), "{blank:?}");
        }
        assert!(serde_json::from_str::<Prompt>(r#"" ""#).is_err());
        assert_eq!(
            serde_json::from_str::<Prompt>(r#"" a  b ""#)
                .unwrap()
                .as_str(),
            "a b"
        );
    }
}
