//! The input log: every edit the typing engine applied, with its time, in a compact
//! versioned binary form (base64 in JSON). The server replays it through the same
//! [`crate::Session`] to recompute a result (docs/replay.md).
//!
//! Layout (version 1): one version byte, then one entry per edit:
//! `varint(delta_ms << 3 | tag)` followed by the tag's payload, where `delta_ms` is the
//! time since the previous entry (the first entry is at 0) and varints are unsigned
//! LEB128. Tags:
//!
//! | tag | edit | payload |
//! |---|---|---|
//! | 0 | one committed character | its UTF-8 bytes |
//! | 1 | committed text (not one character) | `varint(len)`, UTF-8 bytes |
//! | 2 | Backspace | — |
//! | 3 | Delete word | — |
//! | 4 | composition start | — |
//! | 5 | composition end | `varint(keys)`, `varint(len)`, UTF-8 bytes |
//!
//! A composition is kept as what it committed plus how many updates (about one per key
//! pressed) it went through; the text it showed on the way is never scored, so it is
//! not kept.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The encoding this code writes and reads.
pub const LOG_VERSION: u8 = 1;

/// The longest span a log may cover: no game is an hour long, and a replay's work
/// (one speed sample per second) stays bounded.
pub const MAX_LOG_SPAN_MS: u64 = 3_600_000;

const TAG_BITS: u32 = 3;
const TAG_CHAR: u64 = 0;
const TAG_TEXT: u64 = 1;
const TAG_BACKSPACE: u64 = 2;
const TAG_DELETE_WORD: u64 = 3;
const TAG_COMPOSITION_START: u64 = 4;
const TAG_COMPOSITION_END: u64 = 5;

/// An edit as the log keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoggedEdit<'a> {
    Commit(&'a str),
    Backspace,
    DeleteWord,
    CompositionStart,
    /// The composition committed `text` after `keys` updates.
    CompositionEnd {
        text: &'a str,
        keys: u32,
    },
}

/// One entry: an edit and its time in ms since the log's first entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry<'a> {
    pub at: u64,
    pub edit: LoggedEdit<'a>,
}

/// An encoded log. Any bytes can be held; [`InputLog::entries`] checks them.
#[derive(Clone, PartialEq, Eq)]
pub struct InputLog(Vec<u8>);

impl InputLog {
    pub fn from_bytes(bytes: Vec<u8>) -> InputLog {
        InputLog(bytes)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn to_base64(&self) -> String {
        BASE64.encode(&self.0)
    }

    pub fn from_base64(text: &str) -> Result<InputLog, base64::DecodeError> {
        BASE64.decode(text).map(InputLog)
    }

    /// The entries, in order; decoding stops at the first error.
    pub fn entries(&self) -> Entries<'_> {
        Entries {
            bytes: &self.0,
            offset: 0,
            at: 0,
            started: false,
            failed: false,
        }
    }
}

impl fmt::Debug for InputLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InputLog({} bytes)", self.0.len())
    }
}

impl Serialize for InputLog {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_base64())
    }
}

impl<'de> Deserialize<'de> for InputLog {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        InputLog::from_base64(&text)
            .map_err(|_| serde::de::Error::custom("the input log is not base64"))
    }
}

/// Writes a log as edits happen. Appending costs a few bytes and no allocation beyond
/// the buffer's growth.
#[derive(Debug, Clone)]
pub struct Recorder {
    bytes: Vec<u8>,
    last_at: Option<u64>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            bytes: vec![LOG_VERSION],
            last_at: None,
        }
    }
}

impl Recorder {
    /// Appends `edit`, made at `at` ms on any clock that never runs backwards.
    pub fn record(&mut self, at: u64, edit: LoggedEdit<'_>) {
        let delta = self.last_at.map_or(0, |last| at.saturating_sub(last));
        self.last_at = Some(at);
        let tag = match edit {
            LoggedEdit::Commit(text) if is_one_char(text) => TAG_CHAR,
            LoggedEdit::Commit(_) => TAG_TEXT,
            LoggedEdit::Backspace => TAG_BACKSPACE,
            LoggedEdit::DeleteWord => TAG_DELETE_WORD,
            LoggedEdit::CompositionStart => TAG_COMPOSITION_START,
            LoggedEdit::CompositionEnd { .. } => TAG_COMPOSITION_END,
        };
        self.push_varint((delta << TAG_BITS) | tag);
        match edit {
            LoggedEdit::Commit(one) if tag == TAG_CHAR => {
                self.bytes.extend_from_slice(one.as_bytes());
            }
            LoggedEdit::Commit(text) => self.push_text(text),
            LoggedEdit::CompositionEnd { text, keys } => {
                self.push_varint(u64::from(keys));
                self.push_text(text);
            }
            LoggedEdit::Backspace | LoggedEdit::DeleteWord | LoggedEdit::CompositionStart => {}
        }
    }

    /// The log so far.
    pub fn log(&self) -> InputLog {
        InputLog(self.bytes.clone())
    }

    fn push_text(&mut self, text: &str) {
        self.push_varint(text.len() as u64);
        self.bytes.extend_from_slice(text.as_bytes());
    }

    fn push_varint(&mut self, mut value: u64) {
        loop {
            let low = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                self.bytes.push(low);
                return;
            }
            self.bytes.push(low | 0x80);
        }
    }
}

fn is_one_char(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some() && chars.next().is_none()
}

/// The entries of an [`InputLog`].
pub struct Entries<'a> {
    bytes: &'a [u8],
    offset: usize,
    at: u64,
    started: bool,
    failed: bool,
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<LogEntry<'a>, LogError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let result = if self.started {
            if self.offset == self.bytes.len() {
                return None;
            }
            self.entry()
        } else {
            self.started = true;
            match self.header() {
                Ok(()) if self.offset == self.bytes.len() => return None,
                Ok(()) => self.entry(),
                Err(error) => Err(error),
            }
        };
        self.failed = result.is_err();
        Some(result)
    }
}

impl<'a> Entries<'a> {
    fn header(&mut self) -> Result<(), LogError> {
        match self.bytes.first() {
            None => Err(self.error(LogErrorKind::Empty)),
            Some(&LOG_VERSION) => {
                self.offset = 1;
                Ok(())
            }
            Some(&other) => Err(self.error(LogErrorKind::UnknownVersion(other))),
        }
    }

    fn entry(&mut self) -> Result<LogEntry<'a>, LogError> {
        let start = self.offset;
        let head = self.varint()?;
        let tag = head & ((1 << TAG_BITS) - 1);
        let delta = head >> TAG_BITS;
        self.at = self
            .at
            .checked_add(delta)
            .filter(|at| *at <= MAX_LOG_SPAN_MS)
            .ok_or(LogError {
                offset: start,
                kind: LogErrorKind::TooLong,
            })?;
        let edit = match tag {
            TAG_CHAR => LoggedEdit::Commit(self.one_char()?),
            TAG_TEXT => LoggedEdit::Commit(self.text()?),
            TAG_BACKSPACE => LoggedEdit::Backspace,
            TAG_DELETE_WORD => LoggedEdit::DeleteWord,
            TAG_COMPOSITION_START => LoggedEdit::CompositionStart,
            TAG_COMPOSITION_END => {
                let keys_at = self.offset;
                let keys = u32::try_from(self.varint()?).map_err(|_| LogError {
                    offset: keys_at,
                    kind: LogErrorKind::BadNumber,
                })?;
                LoggedEdit::CompositionEnd {
                    text: self.text()?,
                    keys,
                }
            }
            other => {
                return Err(LogError {
                    offset: start,
                    kind: LogErrorKind::UnknownTag(other as u8),
                });
            }
        };
        Ok(LogEntry { at: self.at, edit })
    }

    fn varint(&mut self) -> Result<u64, LogError> {
        let start = self.offset;
        let bad_number = LogError {
            offset: start,
            kind: LogErrorKind::BadNumber,
        };
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self
                .bytes
                .get(self.offset)
                .ok_or_else(|| self.error(LogErrorKind::Truncated))?;
            self.offset += 1;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(bad_number);
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(bad_number)
    }

    fn text(&mut self) -> Result<&'a str, LogError> {
        let len =
            usize::try_from(self.varint()?).map_err(|_| self.error(LogErrorKind::Truncated))?;
        let end = self
            .offset
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| self.error(LogErrorKind::Truncated))?;
        self.utf8(end)
    }

    fn one_char(&mut self) -> Result<&'a str, LogError> {
        let first = *self
            .bytes
            .get(self.offset)
            .ok_or_else(|| self.error(LogErrorKind::Truncated))?;
        let len = match first {
            0x00..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => return Err(self.error(LogErrorKind::InvalidUtf8)),
        };
        let end = self.offset + len;
        if end > self.bytes.len() {
            return Err(self.error(LogErrorKind::Truncated));
        }
        self.utf8(end)
    }

    fn utf8(&mut self, end: usize) -> Result<&'a str, LogError> {
        let text = std::str::from_utf8(&self.bytes[self.offset..end])
            .map_err(|_| self.error(LogErrorKind::InvalidUtf8))?;
        self.offset = end;
        Ok(text)
    }

    fn error(&self, kind: LogErrorKind) -> LogError {
        LogError {
            offset: self.offset,
            kind,
        }
    }
}

/// Why a log cannot be read, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogError {
    /// Byte offset in the decoded log.
    pub offset: usize,
    pub kind: LogErrorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogErrorKind {
    /// Not even a version byte.
    Empty,
    UnknownVersion(u8),
    /// It ends inside an entry.
    Truncated,
    /// A number is longer than its type.
    BadNumber,
    UnknownTag(u8),
    InvalidUtf8,
    /// It spans more than [`MAX_LOG_SPAN_MS`].
    TooLong,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offset = self.offset;
        match self.kind {
            LogErrorKind::Empty => f.write_str("the input log is empty"),
            LogErrorKind::UnknownVersion(version) => {
                write!(f, "the input log has an unknown version ({version})")
            }
            LogErrorKind::Truncated => write!(f, "the input log ends early (byte {offset})"),
            LogErrorKind::BadNumber => write!(f, "the input log has a bad number at byte {offset}"),
            LogErrorKind::UnknownTag(tag) => {
                write!(
                    f,
                    "the input log has an unknown entry ({tag}) at byte {offset}"
                )
            }
            LogErrorKind::InvalidUtf8 => {
                write!(
                    f,
                    "the input log has text that is not UTF-8 at byte {offset}"
                )
            }
            LogErrorKind::TooLong => write!(
                f,
                "the input log spans more than {} minutes",
                MAX_LOG_SPAN_MS / 60_000
            ),
        }
    }
}

impl std::error::Error for LogError {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entries(log: &InputLog) -> Vec<LogEntry<'_>> {
        log.entries().collect::<Result<_, _>>().unwrap()
    }

    #[test]
    fn a_keystroke_costs_two_or_three_bytes() {
        let mut recorder = Recorder::default();
        recorder.record(5_000, LoggedEdit::Commit("t"));
        recorder.record(5_010, LoggedEdit::Commit("h"));
        recorder.record(5_260, LoggedEdit::Commit("e"));
        let log = recorder.log();
        // version; [0<<3|0, 't']; [10<<3|0 = 80, 'h']; [250<<3|0 = 2000 → 2 bytes, 'e'].
        assert_eq!(
            log.as_bytes(),
            [1, 0, b't', 80, b'h', 0xd0, 0x0f, b'e'].as_slice()
        );
        assert_eq!(
            entries(&log),
            [
                LogEntry {
                    at: 0,
                    edit: LoggedEdit::Commit("t")
                },
                LogEntry {
                    at: 10,
                    edit: LoggedEdit::Commit("h")
                },
                LogEntry {
                    at: 260,
                    edit: LoggedEdit::Commit("e")
                },
            ]
        );
    }

    #[test]
    fn every_edit_round_trips_through_base64_json() {
        let edits = [
            LoggedEdit::Commit("a"),
            LoggedEdit::Commit("学"),
            LoggedEdit::Commit("😀"),
            LoggedEdit::Commit("ab c"),
            LoggedEdit::Commit(""),
            LoggedEdit::Backspace,
            LoggedEdit::DeleteWord,
            LoggedEdit::CompositionStart,
            LoggedEdit::CompositionEnd {
                text: "学而时习之",
                keys: 12,
            },
            LoggedEdit::CompositionEnd { text: "", keys: 0 },
        ];
        let mut recorder = Recorder::default();
        for (i, edit) in edits.iter().enumerate() {
            recorder.record(1_000 + i as u64 * 70_000, *edit);
        }
        let log = recorder.log();
        let json = serde_json::to_string(&log).unwrap();
        let back: InputLog = serde_json::from_str(&json).unwrap();
        assert_eq!(back, log);
        let read = entries(&back);
        assert_eq!(read.iter().map(|e| e.edit).collect::<Vec<_>>(), edits);
        assert_eq!(read.last().unwrap().at, 9 * 70_000);
        assert!(serde_json::from_str::<InputLog>("\"not base64!\"").is_err());
    }

    #[test]
    fn broken_logs_say_what_and_where() {
        let cases: [(&[u8], &str); 9] = [
            (&[], "the input log is empty"),
            (&[2, 0, b'a'], "the input log has an unknown version (2)"),
            (&[1, 0], "the input log ends early (byte 2)"),
            (&[1, 1, 5, b'a'], "the input log ends early (byte 3)"),
            (&[1, 6], "the input log has an unknown entry (6) at byte 1"),
            (
                &[1, 0, 0xff],
                "the input log has text that is not UTF-8 at byte 2",
            ),
            (&[1, 0, 0xe5, 0xad], "the input log ends early (byte 2)"),
            (
                &[
                    1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02,
                ],
                "the input log has a bad number at byte 1",
            ),
            // 3_600_001 ms << 3 | 2 as a varint.
            (
                &[1, 0x8a, 0xe8, 0xdd, 0x0d],
                "the input log spans more than 60 minutes",
            ),
        ];
        for (bytes, message) in cases {
            let log = InputLog::from_bytes(bytes.to_vec());
            let error = log.entries().find_map(Result::err).expect("an error");
            assert_eq!(error.to_string(), message, "{bytes:?}");
            assert!(
                log.entries().skip_while(Result::is_ok).nth(1).is_none(),
                "stops at the error"
            );
        }
        assert_eq!(InputLog::from_bytes(vec![1]).entries().count(), 0);
    }

    fn edit() -> impl Strategy<Value = (u64, String, u8, u32)> {
        (0..5_000u64, ".{0,4}", 0..6u8, any::<u32>())
    }

    proptest! {
        #[test]
        fn what_is_recorded_is_read_back(edits in proptest::collection::vec(edit(), 0..50)) {
            let mut recorder = Recorder::default();
            let mut expected = Vec::new();
            let mut at = 0;
            for (gap, text, kind, keys) in &edits {
                at += gap;
                let edit = match kind {
                    0 | 1 => LoggedEdit::Commit(text),
                    2 => LoggedEdit::Backspace,
                    3 => LoggedEdit::DeleteWord,
                    4 => LoggedEdit::CompositionStart,
                    _ => LoggedEdit::CompositionEnd { text, keys: *keys },
                };
                recorder.record(at, edit);
                expected.push((at, edit));
            }
            let log = recorder.log();
            let first = expected.first().map_or(0, |(at, _)| *at);
            let read: Vec<_> = entries(&log).into_iter().map(|e| (e.at + first, e.edit)).collect();
            prop_assert_eq!(read, expected);
        }

        #[test]
        fn any_bytes_decode_or_fail_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let log = InputLog::from_bytes(bytes);
            let mut last = 0;
            for entry in log.entries().flatten() {
                prop_assert!(entry.at >= last && entry.at <= MAX_LOG_SPAN_MS);
                last = entry.at;
            }
        }
    }
}
