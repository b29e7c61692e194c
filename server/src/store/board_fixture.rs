//! A seeded population of the public boards, for load runs and the rank tests
//! (docs/operations.md, "Ranks at a million").
//!
//! Each player has a skill per language and plays about ten games over the fixture's
//! weeks; the games are kept as the boards keep them (the best per mode, and per mode
//! and week), so 1M players stand for about 10M games. Speeds are what real games
//! give: a 60 s `time` game moves in steps of 0.2 WPM and times are whole seconds, so
//! ties on value and on time are common and the player id has to break some. The same
//! seed gives the same rows; each player's rows come from their own seed, so any one
//! of them (and their token) can be rebuilt without the others.

use super::sql::Value;
use keydo_core::Mode;
use keydo_core::api::week::week_start_ms;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct BoardFixture {
    pub players: u32,
    pub seed: u64,
    /// The last week games fall in; they spread over `weeks` weeks up to it.
    pub last_week: i64,
    pub weeks: i64,
}

/// One generated player, their device and their board rows, each row in its table's
/// column order.
pub struct FixturePlayer {
    pub player: Vec<Value>,
    /// Their one device, holding the token ([`DEVICE_COLUMNS`]).
    pub device: Vec<Value>,
    pub scores: Vec<Vec<Value>>,
    pub weekly: Vec<Vec<Value>>,
    pub games: u32,
}

pub const PLAYER_COLUMNS: &[&str] = &[
    "player_id",
    "token_sha256",
    "display_name",
    "name_key",
    "version",
    "created_at",
];
/// A save's first device has the player's id, as migration V4 made them.
pub const DEVICE_COLUMNS: &[&str] = &[
    "device_id",
    "player_id",
    "token_sha256",
    "label",
    "linked_at",
];
pub const SCORE_COLUMNS: &[&str] = &["player_id", "mode", "value", "score_id", "achieved_at"];
pub const WEEKLY_COLUMNS: &[&str] = &[
    "player_id",
    "mode",
    "week",
    "value",
    "score_id",
    "achieved_at",
];

/// How often a game is in each mode, by weight.
const MODES: [(Mode, u32); 4] = [
    (Mode::Time, 50),
    (Mode::Words, 20),
    (Mode::Quote, 15),
    (Mode::Zh, 15),
];

impl BoardFixture {
    fn rng(&self, n: u32) -> fastrand::Rng {
        fastrand::Rng::with_seed(self.seed ^ u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// The `n`th player's id and bearer token (a load run signs in as them).
    pub fn identity(&self, n: u32) -> (Uuid, Uuid) {
        let mut rng = self.rng(n);
        (random_id(&mut rng), random_id(&mut rng))
    }

    /// The `n`th player, with every row they hold.
    pub fn player(&self, n: u32) -> FixturePlayer {
        let mut rng = self.rng(n);
        let (player_id, token) = (random_id(&mut rng), random_id(&mut rng));
        let id = Value::Text(player_id.hyphenated().to_string());
        let first_week = self.last_week - self.weeks + 1;
        let created_at = Value::Int(week_start_ms(first_week));
        let token_sha256 = Value::Text(hex::encode(Sha256::digest(token.hyphenated().to_string())));
        let player = vec![
            id.clone(),
            token_sha256.clone(),
            Value::Text(format!("Typist {n}")),
            Value::Text(format!("typist{n}")),
            Value::Int(1),
            created_at.clone(),
        ];
        let device = vec![
            id.clone(),
            id.clone(),
            token_sha256,
            Value::Text("Browser".to_owned()),
            created_at,
        ];
        // Words per minute in English, 字 per minute in Chinese.
        let english = normal(&mut rng, 55.0, 20.0).clamp(8.0, 220.0);
        let chinese = normal(&mut rng, 70.0, 30.0).clamp(8.0, 320.0);
        // About ten games each: 1 plus an exponential draw of mean 9.
        let games = 1 + (-(1.0 - rng.f64()).ln() * 9.0) as u32;
        let mut scores: Vec<(Mode, i64, Uuid, i64)> = Vec::new();
        let mut weekly: Vec<(Mode, i64, i64, Uuid, i64)> = Vec::new();
        for _ in 0..games {
            let mode = pick_mode(&mut rng);
            let skill = if mode == Mode::Zh { chinese } else { english };
            let speed = skill * (0.85 + 0.25 * rng.f64());
            let value = match mode {
                // correct characters in 60 s × 20: steps of 0.2 WPM.
                Mode::Time => (speed * 5.0).round() as i64 * 20,
                _ => (speed * 100.0).round() as i64,
            };
            let week = first_week + rng.i64(0..self.weeks);
            let achieved_at = week_start_ms(week) + rng.i64(0..7 * 24 * 3600) * 1000;
            let score_id = random_id(&mut rng);
            keep_best(
                &mut scores,
                |row| row.0 == mode,
                (mode, value, score_id, achieved_at),
                |row| (row.1, row.3),
            );
            keep_best(
                &mut weekly,
                |row| row.0 == mode && row.1 == week,
                (mode, week, value, score_id, achieved_at),
                |row| (row.2, row.4),
            );
        }
        FixturePlayer {
            player,
            device,
            scores: scores
                .into_iter()
                .map(|(mode, value, score_id, at)| {
                    vec![
                        id.clone(),
                        Value::Text(mode.id().to_owned()),
                        Value::Int(value),
                        Value::Text(score_id.hyphenated().to_string()),
                        Value::Int(at),
                    ]
                })
                .collect(),
            weekly: weekly
                .into_iter()
                .map(|(mode, week, value, score_id, at)| {
                    vec![
                        id.clone(),
                        Value::Text(mode.id().to_owned()),
                        Value::Int(week),
                        Value::Int(value),
                        Value::Text(score_id.hyphenated().to_string()),
                        Value::Int(at),
                    ]
                })
                .collect(),
            games,
        }
    }
}

/// Keeps `game` where the boards would: a new row, or in place of a lower one (the
/// earlier game keeps a tie, as the boards' upsert does).
fn keep_best<T>(
    rows: &mut Vec<T>,
    on_board: impl Fn(&T) -> bool,
    game: T,
    value_and_time: impl Fn(&T) -> (i64, i64),
) {
    match rows.iter_mut().find(|row| on_board(row)) {
        None => rows.push(game),
        Some(row) => {
            let (old, new) = (value_and_time(row), value_and_time(&game));
            if new.0 > old.0 || (new.0 == old.0 && new.1 < old.1) {
                *row = game;
            }
        }
    }
}

fn random_id(rng: &mut fastrand::Rng) -> Uuid {
    uuid::Builder::from_random_bytes(rng.u128(..).to_le_bytes()).into_uuid()
}

fn pick_mode(rng: &mut fastrand::Rng) -> Mode {
    let total: u32 = MODES.iter().map(|(_, weight)| weight).sum();
    let mut draw = rng.u32(0..total);
    for (mode, weight) in MODES {
        if draw < weight {
            return mode;
        }
        draw -= weight;
    }
    unreachable!("the draw is below the total of the weights")
}

/// A normal draw (Box–Muller).
fn normal(rng: &mut fastrand::Rng, mean: f64, deviation: f64) -> f64 {
    let (u, v) = (1.0 - rng.f64(), rng.f64());
    mean + deviation * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_players_and_a_player_its_own_identity() {
        let fixture = BoardFixture {
            players: 100,
            seed: 7,
            last_week: 2900,
            weeks: 8,
        };
        let again = fixture.player(42);
        let first = fixture.player(42);
        assert_eq!(first.player, again.player);
        assert_eq!(first.scores, again.scores);
        assert_eq!(first.weekly, again.weekly);
        let (id, _) = fixture.identity(42);
        assert_eq!(first.player[0], Value::Text(id.to_string()));
        assert_ne!(fixture.player(43).player, first.player);
    }

    #[test]
    fn rows_are_each_boards_best_and_games_average_about_ten() {
        let fixture = BoardFixture {
            players: 2_000,
            seed: 1,
            last_week: 2900,
            weeks: 12,
        };
        let mut games = 0;
        for n in 0..fixture.players {
            let player = fixture.player(n);
            games += player.games;
            // One all-time row per mode, at least as high as each of its weekly rows.
            for score in &player.scores {
                let weekly_best = player
                    .weekly
                    .iter()
                    .filter(|row| row[1] == score[1])
                    .map(|row| match row[3] {
                        Value::Int(value) => value,
                        _ => unreachable!("values are integers"),
                    })
                    .max();
                assert_eq!(Some(score[2].clone()), weekly_best.map(Value::Int));
            }
            assert!(player.weekly.len() <= player.games as usize);
        }
        let mean = f64::from(games) / f64::from(fixture.players);
        assert!((9.0..11.0).contains(&mean), "{mean} games per player");
    }
}
