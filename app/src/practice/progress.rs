//! Progress: a keyboard of the English letters and a grid of the 字 typed so far, each
//! coloured by its confidence from red to green (classes `conf-0` … `conf-10`, no style
//! attribute: the Content-Security-Policy refuses them), every value in its title and
//! accessible name, focusable; the unit in focus shows its last and best speed, its
//! misses and a sparkline of its last games. Below, the player's speed over time.

use super::chart::{
    KEY, SPARK_HEIGHT, SPARK_WIDTH, confidence_class, keyboard, keyboard_size, sparkline, speed,
    unit_label,
};
use crate::services::practice::PracticeService;
use keydo_core::Mode;
use keydo_core::game::mode::Language;
use keydo_core::practice::Course;
use keydo_core::practice::stats::UnitRecord;
use keydo_storage::Db;
use leptos::prelude::*;
use std::sync::Arc;

/// At most this many 字 are drawn, most frequent first: a grid of the whole 1,500
/// would be mostly grey.
const GRID_ZI: usize = 300;
const GRID_COLUMNS: usize = 20;
const CELL: f64 = 28.0;

#[component]
pub fn Progress(course: Arc<Course>) -> impl IntoView {
    let service = expect_context::<PracticeService>();
    let practice = service.practice();
    let (selected, set_selected) = signal(None::<(Language, char)>);
    let english_order = course.english.order().to_vec();
    let keys = move || {
        practice.with(|p| {
            let unlocked = p.stats.letters_unlocked;
            keyboard()
                .into_iter()
                .map(|(letter, x, y)| {
                    let record = p.stats.english.get(&letter);
                    let confidence = p.stats.letter_confidence(letter, p.target);
                    let title = unit_label(letter, record, confidence, "WPM");
                    let name = title.clone();
                    let locked = english_order
                        .iter()
                        .position(|&l| l == letter)
                        .is_none_or(|rank| rank >= unlocked);
                    view! {
                        <g
                            class=format!("unit {}", confidence_class(confidence))
                            class:locked=locked
                            tabindex="0"
                            role="img"
                            aria-label=name
                            data-unit=letter.to_string()
                            on:focus=move |_| set_selected.set(Some((Language::English, letter)))
                            on:mouseenter=move |_| set_selected.set(Some((Language::English, letter)))
                        >
                            <title>{title}</title>
                            <rect x=x y=y width=KEY height=KEY rx="6"/>
                            <text x=x + KEY / 2.0 y=y + KEY * 0.65 text-anchor="middle">{letter.to_string()}</text>
                        </g>
                    }
                })
                .collect_view()
        })
    };
    let chinese = course.chinese.clone();
    let cells = move || {
        practice.with(|p| {
            // The 字 typed so far, in the lists' order (unlisted ones after).
            let unlocked = chinese.unlocked(&p.stats);
            let mut typed: Vec<char> = unlocked
                .iter()
                .copied()
                .filter(|zi| p.stats.chinese.contains_key(zi))
                .collect();
            typed.extend(
                p.stats
                    .chinese
                    .keys()
                    .filter(|zi| !unlocked.contains(zi))
                    .copied(),
            );
            typed.truncate(GRID_ZI);
            let rows = typed.len().div_ceil(GRID_COLUMNS).max(1);
            let cells = typed
                .into_iter()
                .enumerate()
                .map(|(i, zi)| {
                    let (x, y) = (
                        (i % GRID_COLUMNS) as f64 * CELL,
                        (i / GRID_COLUMNS) as f64 * CELL,
                    );
                    let record = p.stats.chinese.get(&zi);
                    let confidence = p.stats.zi_confidence(zi, p.target);
                    let title = unit_label(zi, record, confidence, "字/分");
                    let name = title.clone();
                    view! {
                        <g
                            class=format!("unit {}", confidence_class(confidence))
                            tabindex="0"
                            role="img"
                            aria-label=name
                            data-unit=zi.to_string()
                            on:focus=move |_| set_selected.set(Some((Language::Chinese, zi)))
                            on:mouseenter=move |_| set_selected.set(Some((Language::Chinese, zi)))
                        >
                            <title>{title}</title>
                            <rect x=x y=y width=CELL - 2.0 height=CELL - 2.0 rx="4"/>
                            <text x=x + CELL / 2.0 - 1.0 y=y + CELL * 0.68 text-anchor="middle">{zi.to_string()}</text>
                        </g>
                    }
                })
                .collect_view();
            view! {
                <svg
                    class="zi-grid"
                    viewBox=format!("0 0 {} {}", GRID_COLUMNS as f64 * CELL, rows as f64 * CELL)
                    aria-label="字 typed so far, by confidence"
                    data-testid="practice-zi-grid"
                >
                    {cells}
                </svg>
            }
        })
    };
    let detail = move || {
        let (language, unit) = selected.get()?;
        practice.with(|p| {
            let (record, unit_name) = match language {
                Language::English => (p.stats.english.get(&unit), "WPM"),
                Language::Chinese => (p.stats.chinese.get(&unit), "字/分"),
            };
            Some(unit_detail(unit, record, unit_name))
        })
    };
    let (width, height) = keyboard_size();
    view! {
        <section class="progress" aria-label="Progress">
            <h3>"Progress"</h3>
            <svg
                class="keyboard"
                viewBox=format!("0 0 {width} {height}")
                aria-label="Letters by confidence"
                data-testid="practice-keyboard"
            >
                {keys}
            </svg>
            {cells}
            <div class="unit-detail" aria-live="polite" data-testid="practice-detail">{detail}</div>
            <SpeedOverTime/>
        </section>
    }
}

/// The unit in focus: last and best speed, misses and the sparkline of its last games.
fn unit_detail(unit: char, record: Option<&UnitRecord>, unit_name: &str) -> AnyView {
    let Some(record) = record else {
        return view! { <p>{format!("{unit}: not typed yet")}</p> }.into_any();
    };
    let points = sparkline(&record.recent, SPARK_WIDTH, SPARK_HEIGHT);
    let keys = record
        .keys_per_unit()
        .filter(|_| unit_name != "WPM")
        .map(|keys| format!(", {keys:.1} keys a 字"));
    view! {
        <p>
            <strong>{unit.to_string()}</strong>
            {format!(
                " last {} {unit_name}, best {} {unit_name}, {} missed{}",
                speed(record.last_speed),
                speed(record.best_speed),
                record.misses,
                keys.unwrap_or_default()
            )}
        </p>
        {points.map(|points| view! {
            <svg
                class="sparkline"
                viewBox=format!("0 0 {SPARK_WIDTH} {SPARK_HEIGHT}")
                role="img"
                aria-label=format!("{unit}'s speed over its last {} games", record.recent.len())
            >
                <polyline points=points/>
            </svg>
        })}
    }
    .into_any()
}

/// The player's speed in each game of the boards, oldest first, a line per language.
#[component]
fn SpeedOverTime() -> impl IntoView {
    let played = LocalResource::new(|| async { Db::open().await?.played().await });
    move || {
        let played = match played.get()? {
            Ok(played) => played,
            Err(error) => {
                return Some(view! { <p>{format!("No history: {error}")}</p> }.into_any());
            }
        };
        let lines = [Language::English, Language::Chinese]
            .into_iter()
            .filter_map(|language| {
                let values: Vec<u32> = played
                    .iter()
                    .filter(|(mode, ..)| mode.language() == language)
                    .map(|&(_, value, _)| u32::try_from(value).unwrap_or(0))
                    .collect();
                let unit = practice_unit(language);
                let points = sparkline(&values, SPARK_WIDTH * 3.0, SPARK_HEIGHT * 2.0)?;
                let last = values.last().copied().unwrap_or(0);
                let best = values.iter().copied().max().unwrap_or(0);
                let label = format!(
                    "{} games: latest {} {unit}, best {} {unit}",
                    values.len(),
                    speed(last),
                    speed(best)
                );
                Some(view! {
                    <figure class="speed-history">
                        <svg
                            viewBox=format!("0 0 {} {}", SPARK_WIDTH * 3.0, SPARK_HEIGHT * 2.0)
                            role="img"
                            aria-label=label.clone()
                        >
                            <polyline points=points/>
                        </svg>
                        <figcaption>{label}</figcaption>
                    </figure>
                })
            })
            .collect_view();
        Some(view! { <div data-testid="practice-history">{lines}</div> }.into_any())
    }
}

/// The unit a language's speeds are in.
fn practice_unit(language: Language) -> &'static str {
    match language {
        Language::English => Mode::Words.speed_unit(),
        Language::Chinese => Mode::Zh.speed_unit(),
    }
}
