//! The result's speed chart: an inline SVG drawn from the per-second samples.
//!
//! Two lines: the speed so far (what the result's value is, at each second) and the
//! raw speed within each second (every keystroke, right or wrong), which shows bursts
//! and hesitations. The geometry is in [`plot`]; the drawing is stretched to the
//! figure's size, its strokes are not (`vector-effect`), and the axis labels are HTML
//! so they keep a readable size.

mod plot;

use keydo_core::Mode;
use keydo_core::game::score::Stats;
use leptos::prelude::*;
use plot::{HEIGHT, Plot, WIDTH};

#[component]
pub fn SpeedChart(mode: Mode, samples: Vec<Stats>) -> impl IntoView {
    let plot = Plot::new(mode, &samples);
    let unit = mode.speed_unit();
    let Plot { max_x, max_y, .. } = plot;
    let label = format!(
        "Speed over {max_x:.0} seconds, ending at {:.0} {unit}; peak raw speed {max_y:.0} {unit}.",
        plot.final_speed()
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
                    <polyline class="raw" points=plot.points(&plot.raw)/>
                    <polyline class="net" points=plot.points(&plot.net)/>
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
