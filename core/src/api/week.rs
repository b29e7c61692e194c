//! Week numbering: Monday-based weeks in UTC+8, as an ordinal.
//!
//! `week = floor((unix_ms + 8 h + 3 days) / 7 days)`, so the week that starts on
//! Monday 1970-01-05 00:00 UTC+8 is week 1. The server only updates the weekly
//! board for its current week, so client and server must agree to the millisecond.

const HOUR_MS: i64 = 3_600_000;
/// One day in milliseconds.
pub const DAY_MS: i64 = 24 * HOUR_MS;
const WEEK_MS: i64 = 7 * DAY_MS;
/// UTC+8, the time zone of KeyDo's weeks and of the day's race (docs/genda.md): add it
/// to a UTC instant to read the wall clock there.
pub const UTC8_OFFSET_MS: i64 = 8 * HOUR_MS;
/// Shift that moves a UTC instant to UTC+8 and aligns week starts on Mondays.
const OFFSET_MS: i64 = UTC8_OFFSET_MS + 3 * DAY_MS;

/// The week ordinal containing `unix_ms`.
pub fn week_of(unix_ms: i64) -> i64 {
    (unix_ms + OFFSET_MS).div_euclid(WEEK_MS)
}

/// The instant (unix ms) at which `week` starts: Monday 00:00 UTC+8.
pub fn week_start_ms(week: i64) -> i64 {
    week * WEEK_MS - OFFSET_MS
}

/// A label people read, ISO-style: `2026-W49`.
///
/// The year is the one holding the week's Thursday (UTC+8), as ISO 8601 counts it.
pub fn week_label(week: i64) -> String {
    // The Thursday of the week, as a day count in UTC+8.
    let thursday_days = (week_start_ms(week) + UTC8_OFFSET_MS).div_euclid(DAY_MS) + 3;
    let (year, _, _) = civil_from_days(thursday_days);
    let jan1 = days_from_civil(year, 1, 1);
    let iso_week = (thursday_days - jan1) / 7 + 1;
    format!("{year:04}-W{iso_week:02}")
}

/// Days since 1970-01-01 → (year, month, day); Howard Hinnant's civil calendar algorithm.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// (year, month, day) → days since 1970-01-01.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unix ms of a wall-clock time in UTC+8.
    fn utc8(year: i64, month: u32, day: u32, hour: i64, minute: i64) -> i64 {
        (days_from_civil(year, month, day) * DAY_MS) + hour * HOUR_MS + minute * 60_000
            - UTC8_OFFSET_MS
    }

    #[test]
    fn week_one_starts_monday_1970_01_05_utc8() {
        assert_eq!(week_of(utc8(1970, 1, 5, 0, 0)), 1);
        assert_eq!(week_of(utc8(1970, 1, 5, 0, 0) - 1), 0);
        assert_eq!(week_start_ms(1), utc8(1970, 1, 5, 0, 0));
    }

    #[test]
    fn monday_midnight_utc8_is_the_boundary_not_utc_midnight() {
        // 2026-11-30 is a Monday.
        let monday = utc8(2026, 11, 30, 0, 0);
        let week = week_of(monday);
        assert_eq!(week_of(monday - 1), week - 1, "Sunday 23:59:59.999 UTC+8");
        assert_eq!(
            week_of(utc8(2026, 12, 6, 23, 59)),
            week,
            "Sunday night UTC+8"
        );
        assert_eq!(week_of(utc8(2026, 12, 7, 0, 0)), week + 1);
        // Sunday 16:00 UTC is already Monday in UTC+8.
        assert_eq!(
            week_of(days_from_civil(2026, 11, 29) * DAY_MS + 16 * HOUR_MS),
            week
        );
        assert_eq!(week_start_ms(week), monday);
    }

    #[test]
    fn labels_follow_iso_weeks() {
        assert_eq!(week_label(week_of(utc8(2026, 11, 30, 12, 0))), "2026-W49");
        // 2021-01-03 (Sunday) belongs to 2020-W53; 2021-01-04 starts 2021-W01.
        assert_eq!(week_label(week_of(utc8(2021, 1, 3, 12, 0))), "2020-W53");
        assert_eq!(week_label(week_of(utc8(2021, 1, 4, 0, 0))), "2021-W01");
        // 2024-12-30 (Monday) is 2025-W01.
        assert_eq!(week_label(week_of(utc8(2024, 12, 30, 0, 0))), "2025-W01");
    }

    #[test]
    fn civil_round_trip() {
        for days in [-1000, 0, 1, 59, 365, 10_957, 20_000, 20_422] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
