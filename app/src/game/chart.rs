//! The result's speed chart: an inline SVG drawn from the per-second samples.
//!
//! Two lines: the speed so far (what the result's value is, at each second) and the
//! raw speed within each second (every keystroke, right or wrong), which shows bursts
//! and hesitations.

use keydo_core::Mode;
use keydo_core::score::{self, Stats};
use leptos::prelude::*;

/// The drawing's own units; it is stretched to the figure's size, its strokes are not
/// (`vector-effect`), and the axis labels are HTML so they keep a readable size.
const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 200.0;

/// The speed a mode shows: WPM, or 字/分 in `zh`.
fn speed(mode: Mode, stats: &Stats) -> f64 {
    match mode {
        Mode::Zh => score::zi_per_minute(stats),
        _ => score::net_wpm(stats),
    }
}

/// Keystrokes per minute within the interval from `before` to `after`, in the mode's
/// unit (a word is 5 keystrokes).
fn raw_speed(mode: Mode, before: &Stats, after: &Stats) -> f64 {
    let keys = f64::from(after.keystrokes - before.keystrokes);
    let minutes = (after.duration_ms - before.duration_ms) as f64 / 60_000.0;
    let per_unit = if mode == Mode::Zh { 1.0 } else { 5.0 };
    keys / per_unit / minutes
}

#[component]
pub fn SpeedChart(mode: Mode, samples: Vec<Stats>) -> impl IntoView {
    let start = Stats {
        duration_ms: 0,
        correct_chars: 0,
        errors: 0,
        keystrokes: 0,
        correct_keystrokes: 0,
    };
    let net: Vec<(f64, f64)> = samples
        .iter()
        .map(|s| (s.duration_ms as f64 / 1000.0, speed(mode, s)))
        .collect();
    let raw: Vec<(f64, f64)> = std::iter::once(&start)
        .chain(&samples)
        .zip(&samples)
        .map(|(before, after)| {
            (
                after.duration_ms as f64 / 1000.0,
                raw_speed(mode, before, after),
            )
        })
        .collect();
    let max_x = net.last().map_or(1.0, |(x, _)| x.max(1.0));
    let max_y = raw
        .iter()
        .chain(&net)
        .map(|(_, y)| *y)
        .fold(10.0, f64::max)
        .ceil();
    let points = |line: &[(f64, f64)]| {
        line.iter()
            .map(|(x, y)| {
                let px = x / max_x * WIDTH;
                let py = HEIGHT * (1.0 - y / max_y);
                format!("{px:.1},{py:.1}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let unit = if mode == Mode::Zh { "字/分" } else { "WPM" };
    let final_speed = net.last().map_or(0.0, |(_, y)| *y);
    let label = format!(
        "Speed over {max_x:.0} seconds, ending at {final_speed:.0} {unit}; peak raw speed {max_y:.0} {unit}."
    );
    view! {
        <figure class="chart">
            <div class="plot">
                <span class="y-max">{max_y}</span>
                <span class="y-min">"0"</span>
                <svg
                    viewBox=format!("0 0 {WIDTH} {HEIGHT}")
                    preserveAspectRatio="none"
                    role="img"
                    aria-label=label
                    data-testid="speed-chart"
                >
                    <polyline class="raw" points=points(&raw)/>
                    <polyline class="net" points=points(&net)/>
                </svg>
                <span class="x-max">{format!("{max_x:.0} s")}</span>
            </div>
            <figcaption>
                <span class="key net">{format!("{unit} so far")}</span>
                <span class="key raw">{format!("raw {unit} each second")}</span>
            </figcaption>
        </figure>
    }
}
