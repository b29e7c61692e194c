//! 跟打报告 on the result screen: the passage coloured by the time each 字 or word
//! took, the slowest marked with their seconds, 回改 spots marked, a strip of the
//! game's seconds that lights what was typed in each, and the 速度损失 line
//! (docs/scoring.md, "The report").
//!
//! The report itself is core's [`keydo_core::game::report::report`], computed once by
//! the result screen; this only draws it. The colours say nothing a reader needs:
//! each unit's title and accessible name carry its seconds and marks.

mod units;

use keydo_core::Mode;
use keydo_core::game::report::Report;
use leptos::prelude::*;
use std::ops::Range;
use units::{second_heights, speed_loss_line, unit_views, units_in_second, untyped_rest};

#[component]
pub fn ReportView(mode: Mode, report: Report, target: Vec<char>) -> impl IntoView {
    let (lit, set_lit) = signal(None::<Range<usize>>);
    let is_lit = move |index: usize| lit.with(|r| r.as_ref().is_some_and(|r| r.contains(&index)));
    let passage = unit_views(&report, &target)
        .into_iter()
        .enumerate()
        .map(|(index, unit)| {
            let label = format!("{} {}", unit.text, unit.title);
            let slow = unit.slow_rank.map(|rank| {
                view! { <sup class="slow-mark" data-rank=rank>{unit.seconds.clone()}</sup> }
            });
            view! {
                <span
                    class=format!("unit bucket-{}", unit.bucket)
                    class:slow=unit.slow_rank.is_some()
                    class:corrected=unit.corrected
                    class:wrong=unit.wrong
                    class:lit=move || is_lit(index)
                    title=unit.title.clone()
                    aria-label=label
                    tabindex="0"
                >
                    {unit.text}
                </span>
                {slow}
            }
        })
        .collect_view();
    let rest = untyped_rest(&report, &target);
    let strip = second_heights(&report)
        .into_iter()
        .enumerate()
        .map(|(second, height)| {
            let units = units_in_second(&report, second);
            let typed: String = report.timeline[second]
                .clone()
                .filter_map(|i| target.get(i))
                .collect();
            let label = format!("Second {}: {typed}", second + 1);
            let light = move || set_lit.set(Some(units.clone()));
            let light_on_focus = light.clone();
            view! {
                <button
                    // Tenths of the tallest: a class, as the CSP refuses style attributes.
                    class=format!("second h{}", (height * 10.0).round().clamp(0.0, 10.0) as u8)
                    title=label.clone()
                    aria-label=label
                    on:mouseenter=move |_| light()
                    on:focus=move |_| light_on_focus()
                    on:mouseleave=move |_| set_lit.set(None)
                    on:blur=move |_| set_lit.set(None)
                ></button>
            }
        })
        .collect_view();
    let loss = speed_loss_line(mode, &report.speed_loss);
    view! {
        <section class="report" data-testid="report" aria-label="Report of every 字">
            <h3 class="report-heading">"报告"</h3>
            <p class="report-passage" lang=mode.language().tag()>
                {passage}
                {(!rest.is_empty()).then(|| view! { <span class="untyped">{rest}</span> })}
            </p>
            <p class="report-legend">
                <span class="unit bucket-0">"fastest"</span>" … "<span class="unit bucket-4">"slowest"</span>
                " · "<span class="unit corrected">"回改"</span>
                " · "<span class="unit wrong">"错"</span>
                " · seconds over the ten slowest; hover or focus any for its time"
            </p>
            <div class="seconds" role="group" aria-label="What was typed in each second">{strip}</div>
            <p class="speed-loss" data-testid="speed-loss">{loss}</p>
        </section>
    }
}
