//! The JSON bodies of KeyDo's `/api` (docs/api.md), shared by the app, the service worker
//! and the server so the three cannot drift apart.
//!
//! Request bodies refuse unknown fields (the server answers 422); response bodies
//! accept them, so an older client keeps working when the server adds a field.

use crate::game::board::Ranking;
use crate::game::input_log::InputLog;
use crate::game::mode::Mode;
use crate::game::options::TestOptions;
use crate::game::prompt_id::PromptId;
use crate::game::score::Stats;
use crate::profile::Confirmed;
use crate::text::{MAX_EN_CHARS, MAX_ZH_CHARS};
use crate::verify::bounds::{LOG_BYTES_ALLOWANCE, MAX_LOG_BYTES_PER_CHAR};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub mod code;
pub mod week;
pub use crate::profile::{Conflict, Profile, ProfileOperation};
pub use code::ApiCode;

/// The header that makes a mutating request safe to resend: the server keeps the answer
/// per key for at least a day and replays it (docs/sync.md).
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// The largest request body the server reads, in bytes, but for a score's.
pub const MAX_BODY_BYTES: usize = 100 * 1024;
/// The largest `POST /api/scores` body the server reads: room for the longest log the
/// bounds allow (docs/replay.md, "What a log may hold") on the longest text a player
/// may load, in base64, with that text escaped character by character (`\uXXXX`, the
/// longest a JSON character gets), and 4 KiB for the submission's other fields.
pub const MAX_SCORE_BODY_BYTES: usize = {
    let chars = if MAX_EN_CHARS > MAX_ZH_CHARS {
        MAX_EN_CHARS
    } else {
        MAX_ZH_CHARS
    };
    let log_bytes = chars * MAX_LOG_BYTES_PER_CHAR + LOG_BYTES_ALLOWANCE;
    log_bytes.div_ceil(3) * 4 + chars * "\\uXXXX".len() + 4 * 1024
};
/// The most entries one leaderboard request returns, and the default.
pub const MAX_LEADERBOARD_LIMIT: u32 = 100;
pub const DEFAULT_LEADERBOARD_LIMIT: u32 = 50;

/// `POST /api/saves`: omit the name to get a generated one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSave {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

/// `201` from `POST /api/saves`. The token is shown this once; the server keeps only
/// its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SaveCreated {
    pub player_id: Uuid,
    pub token: Uuid,
    pub version: i64,
    pub profile: Profile,
}

/// The save a browser plays as, from [`SaveCreated`]: the player and the token it sends
/// as its bearer. Stored by the client apart from its outbox: the token is the player's
/// secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Credentials {
    pub player_id: Uuid,
    pub token: Uuid,
}

impl From<&SaveCreated> for Credentials {
    fn from(save: &SaveCreated) -> Credentials {
        Credentials {
            player_id: save.player_id,
            token: save.token,
        }
    }
}

/// The profile a new (or newly linked) save starts from.
impl From<&SaveCreated> for Confirmed {
    fn from(save: &SaveCreated) -> Confirmed {
        Confirmed {
            version: save.version,
            profile: save.profile.clone(),
        }
    }
}

/// `GET /api/saves/me`: the save, without its token, and the bests the server holds
/// for it, so a client can resend what a server restored from a backup lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Save {
    pub player_id: Uuid,
    pub version: i64,
    pub profile: Profile,
    /// The server's current week (UTC+8): the week each [`ServerBest::weekly`] is for.
    pub week: i64,
    /// One entry per mode the player has a score in.
    pub bests: Vec<ServerBest>,
    /// The player's best of each test with options they have a score in (personal
    /// boards, docs/scoring.md "Options"); absent from servers before options.
    #[serde(default)]
    pub option_bests: Vec<OptionsBest>,
}

/// The server's best of one player on one test with options (never the default test,
/// whose bests are [`ServerBest`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionsBest {
    pub mode: Mode,
    pub options: TestOptions,
    pub value: i64,
}

/// The profile the server holds for the save.
impl From<&Save> for Confirmed {
    fn from(save: &Save) -> Confirmed {
        Confirmed {
            version: save.version,
            profile: save.profile.clone(),
        }
    }
}

/// The server's best values of one player in one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerBest {
    pub mode: Mode,
    /// The all-time best.
    pub alltime: i64,
    /// The best of [`Save::week`], if the player has one there.
    pub weekly: Option<i64>,
}

/// `POST /api/scores`: one finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScoreSubmission {
    /// Chosen by the client once per game, so a resend is recognisably the same game.
    pub score_id: Uuid,
    pub mode: Mode,
    /// The week the game was played in, by the client's clock ([`crate::api::week::week_of`]).
    pub week: i64,
    pub value: i64,
    /// When the game ended, in unix milliseconds.
    pub played_at: u64,
    pub stats: Stats,
    /// Which prompt was typed. Required: the server answers 422 `INPUT_LOG_MISSING`
    /// without it (optional here so that answer can say so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptId>,
    /// Every edit the game applied, with its time (docs/replay.md). Required like
    /// `prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<InputLog>,
}

/// `200` from `POST /api/scores`, also for a resend or a lower score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreAck {
    /// Whether this game (by `scoreId`) holds the player's all-time best for the mode;
    /// for a loaded text, the player's best on the text's board.
    pub improved: bool,
    /// The player's all-time best for the mode; for a loaded text, on its best board.
    pub best: i64,
    /// Whether `week` was the server's current week, so the weekly board was considered.
    pub weekly_accepted: bool,
    /// Whether this game holds the player's best of the current week.
    pub weekly_improved: bool,
    /// The player's best of the current week, when the weekly board was considered.
    pub weekly_best: Option<i64>,
    /// The server's current week.
    pub week: i64,
    /// Whether the game waits for an operator's review before it appears on the public
    /// boards (it counts for the player meanwhile; docs/replay.md). `improved` and the
    /// bests then describe the public boards, without this game.
    #[serde(default)]
    pub held: bool,
    /// The result's code once the server accepted it: the 验证 code of its 成绩 line,
    /// and its replay at `/r/<code>` once it is public (docs/api.md, "Results").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// For a game with a first-only board (a loaded text's 首打, the day's race):
    /// whether this game is the player's first there. `None` for other games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_attempt: Option<bool>,
}

/// `200` from `PATCH /api/saves/me`: the profile after the operation, and the fields
/// where it met a change made elsewhere (docs/profile.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileAnswer {
    pub version: i64,
    pub profile: Profile,
    pub conflicts: Vec<Conflict>,
}

/// `POST /api/saves/me/operations`: up to [`crate::profile::OPERATIONS_PER_REQUEST`] profile
/// operations of one device, in the order it made them, each under its own key
/// (docs/api.md, "Profile").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileOperations {
    pub operations: Vec<KeyedOperation>,
}

/// One operation of [`ProfileOperations`], as `PATCH /api/saves/me` takes it: its
/// `Idempotency-Key` and its body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyedOperation {
    pub idempotency_key: Uuid,
    pub operation: ProfileOperation,
}

/// `200` from `POST /api/saves/me/operations`: the answers to the first operations, in
/// order. Fewer answers than operations means the next one was refused; sent first in
/// a request of its own, it gets its refusal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileAnswers {
    pub answers: Vec<ProfileAnswer>,
}

/// The profile after the operation.
impl From<&ProfileAnswer> for Confirmed {
    fn from(answer: &ProfileAnswer) -> Confirmed {
        Confirmed {
            version: answer.version,
            profile: answer.profile.clone(),
        }
    }
}

/// `201` from `POST /api/devices/link-codes`: a one-time code another device enters
/// to join this player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkCode {
    /// Groups of letters and digits, as people read and type it (docs/profile.md).
    pub code: String,
    /// Unix ms after which the code is refused.
    pub expires_at: u64,
}

/// `POST /api/devices`: join the player whose device showed `code`. Also the body of
/// `POST /api/devices/link-codes/check`, which only says whose code it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkDevice {
    pub code: String,
}

/// `200` from `POST /api/devices/link-codes/check`: the player a live code joins, so
/// the page can say what linking will do before the player confirms it (docs/profile.md,
/// "Devices"). Checking uses nothing up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkCodeOwner {
    pub display_name: String,
}

/// `GET /api/devices`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Devices {
    /// Oldest first.
    pub devices: Vec<Device>,
}

/// One device (one token) of a player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    pub id: Uuid,
    /// What the device said it was when it joined ("Chrome on Android").
    pub label: String,
    /// Unix ms.
    pub linked_at: i64,
    /// Whether this is the device asking.
    pub current: bool,
}

/// Which leaderboard: this week's (UTC+8) or all time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Board {
    Weekly,
    Alltime,
}

impl Board {
    /// The id used in the query string.
    pub fn id(self) -> &'static str {
        match self {
            Board::Weekly => "weekly",
            Board::Alltime => "alltime",
        }
    }
}

/// `GET /api/leaderboard?mode=&board=&limit=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Leaderboard {
    pub mode: Mode,
    pub board: Board,
    /// The server's current week (the one a weekly board shows).
    pub week: i64,
    /// Best first; ties go to whoever got there first.
    pub entries: Vec<LeaderboardEntry>,
    /// The caller's own place, when the request carried a token and the player is on
    /// this board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub me: Option<OwnRank>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardEntry {
    pub rank: i64,
    pub display_name: String,
    /// A short tag of the player ("3FA9"), stable for the player, shown after the name
    /// when it could be taken for another player's name (docs/replay.md, "Display
    /// names"); absent otherwise, and from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_suffix: Option<String>,
    pub value: i64,
    /// When the game ended, in unix milliseconds.
    pub achieved_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnRank {
    pub rank: i64,
    pub value: i64,
    pub achieved_at: i64,
}

/// `200` from `GET /api/boards`: a loaded text's board or a day's race (docs/api.md,
/// "Text boards and the day's race").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextBoard {
    /// The board's id: `text:<hash>:best`, `text:<hash>:first` or `daily:<zh|en>:<day>`.
    pub board: String,
    /// The mode its games are played in.
    pub mode: Mode,
    /// `first` (首打: each player's first completed attempt) or `best`.
    pub ranking: Ranking,
    /// Best value first; ties go to whoever the server received first.
    pub entries: Vec<TextBoardEntry>,
    /// The caller's own place, when the request carried a token and the player is on
    /// this board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub me: Option<OwnRank>,
}

/// One line of a [`TextBoard`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextBoardEntry {
    pub rank: i64,
    pub display_name: String,
    /// As in [`LeaderboardEntry`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_suffix: Option<String>,
    pub value: i64,
    /// When the server first received the game, in unix milliseconds.
    pub achieved_at: i64,
    /// When the game ended, by its player's clock, in unix milliseconds.
    pub played_at: i64,
    /// The result's code: its replay is `GET /api/results/{code}/replay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// `200` from `GET /api/texts/{hash}`: a stored text, to load and type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredTextAnswer {
    /// The full hash (64 hex digits).
    pub hash: String,
    /// Its first 12 hex digits: the `/t/<short>` link.
    pub short: String,
    /// The normalised text.
    pub text: String,
    /// The mode it is typed in (`zh` or `quote`).
    pub mode: Mode,
}

/// `200` from `GET /api/results/{code}/replay`: a public, verified result's prompt and
/// input log, to play back key by key (docs/api.md, "Results").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultReplay {
    pub mode: Mode,
    pub prompt: PromptId,
    /// The input log exactly as the server stored it.
    pub input: InputLog,
    pub value: i64,
    pub display_name: String,
    pub played_at: i64,
}

/// The body of every error answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    /// Stable, for programs: one of [`ApiCode`] (kept a string so an older client reads
    /// codes added later).
    pub code: String,
    /// For people.
    pub message: String,
    /// Also in the `X-Request-Id` header and in the server's log line.
    pub request_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_score_submission_reads_the_documented_body() {
        let body = json!({
            "scoreId": "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11",
            "mode": "words", "week": 2917, "value": 6000, "playedAt": 1_764_460_800_000_u64,
            "stats": { "durationMs": 60000, "correctChars": 300, "errors": 2,
                       "keystrokes": 310, "correctKeystrokes": 305 },
            "prompt": { "corpus": "words", "seed": 42 },
            "input": "AQB0UGg="
        });
        let submission: ScoreSubmission = serde_json::from_value(body.clone()).unwrap();
        assert_eq!(submission.mode, Mode::Words);
        assert_eq!(
            submission.input.as_ref().map(InputLog::as_bytes),
            Some([1, 0, b't', 80, b'h'].as_slice())
        );
        assert_eq!(serde_json::to_value(&submission).unwrap(), body);
    }

    #[test]
    fn unknown_fields_in_requests_are_refused() {
        let mut body = json!({
            "scoreId": "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11",
            "mode": "zh", "week": 1, "value": 1, "playedAt": 1,
            "stats": { "durationMs": 1, "correctChars": 1, "errors": 0,
                       "keystrokes": 1, "correctKeystrokes": 1 },
            "extra": true
        });
        assert!(serde_json::from_value::<ScoreSubmission>(body.clone()).is_err());
        body.as_object_mut().unwrap().remove("extra");
        body["stats"]["extra"] = json!(1);
        assert!(serde_json::from_value::<ScoreSubmission>(body).is_err());
        assert!(serde_json::from_value::<CreateSave>(json!({ "name": "x" })).is_err());
        assert_eq!(
            serde_json::from_value::<CreateSave>(json!({})).unwrap(),
            CreateSave::default()
        );
    }

    #[test]
    fn responses_tolerate_fields_added_later() {
        let body = json!({
            "mode": "time", "board": "alltime", "week": 3, "entries": [], "newField": 1
        });
        let board: Leaderboard = serde_json::from_value(body).unwrap();
        assert_eq!(board.board, Board::Alltime);
        assert_eq!(board.me, None);
    }
}
