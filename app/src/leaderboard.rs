//! The leaderboards, per mode, weekly and all-time, fetched live, in the mode's
//! speed (WPM or 字/分, two decimals).
//!
//! Never cached (the service worker leaves `/api` alone): offline, the board says
//! so instead of showing stale ranks. The player's own row is highlighted, and
//! their rank is shown even when it is below the list. After a game the board shows
//! that game's mode, and it is fetched again whenever results were seen delivered.

use crate::services::api::{self, BoardUnavailable, TextBoardRef};
use crate::services::profile::ProfileService;
use crate::services::records::Records;
use crate::services::sync::Coordinator;
use keydo_core::Mode;
use keydo_core::api::week::week_label;
use keydo_core::api::{Board, Leaderboard as Fetched, OwnRank, TextBoard};
use keydo_core::game::board::{Board as GameBoard, Ranking};
use keydo_core::game::mode::value_digits;
use leptos::prelude::*;

#[component]
pub fn Leaderboard() -> impl IntoView {
    // Grows whenever results were seen delivered (by this page, the worker or another tab).
    let delivered = expect_context::<Coordinator>().delivered();
    // And whenever the server confirms a profile change, so a new name shows.
    let profile = expect_context::<ProfileService>().view();
    let profile_version = Memo::new(move |_| profile.with(|v| v.version));
    let (mode, set_mode) = signal(Mode::Time);
    let (board, set_board) = signal(Board::Weekly);
    let (refreshes, set_refreshes) = signal(0u32);
    // After a game, the board of the mode just played.
    let last_played = expect_context::<Records>().last_played();
    // A loaded text is not on its mode's boards: its own show below.
    let last_boards = expect_context::<Records>().last_boards();
    Effect::new(move || {
        if let Some(played) = last_played.get()
            && last_boards.with(|boards| boards.contains(&GameBoard::Mode))
        {
            set_mode.set(played);
        }
    });
    let fetched = LocalResource::new(move || {
        delivered.track();
        profile_version.track();
        refreshes.track();
        api::leaderboard(mode.get(), board.get())
    });
    let tab = move |b: Board, label: &'static str| {
        view! {
            <button
                role="tab"
                aria-selected=move || (board.get() == b).to_string()
                data-testid=format!("board-{}", b.id())
                on:click=move |_| set_board.set(b)
            >
                {label}
            </button>
        }
    };
    view! {
        <section class="leaderboard" aria-labelledby="leaderboard-title">
            <h2 id="leaderboard-title">"Leaderboard"</h2>
            <p class="muted" data-testid="leaderboard-ranked">
                "Ranked: the default tests (Time 60 s, Words 50 words, without punctuation or numbers; Quote; 中文). Other options keep a personal best only."
            </p>
            <div class="leaderboard-controls">
                <label>
                    "Mode "
                    <select
                        data-testid="leaderboard-mode"
                        on:change=move |ev| {
                            if let Ok(m) = event_target_value(&ev).parse() {
                                set_mode.set(m);
                            }
                        }
                    >
                        {Mode::ALL
                            .into_iter()
                            .map(|m| {
                                view! {
                                    <option value=m.id() prop:selected=move || mode.get() == m>
                                        {m.name()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
                <div role="tablist">{tab(Board::Weekly, "This week")} {tab(Board::Alltime, "All time")}</div>
                <button data-testid="leaderboard-refresh" on:click=move |_| set_refreshes.update(|n| *n += 1)>
                    "Refresh"
                </button>
            </div>
            {move || match fetched.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(Err(unavailable)) => {
                    let testid = if unavailable == BoardUnavailable::Offline {
                        "leaderboard-offline"
                    } else {
                        "leaderboard-error"
                    };
                    view! { <p class="muted" data-testid=testid>{unavailable_words(unavailable)}</p> }.into_any()
                }
                Some(Ok(fetched)) => table(fetched).into_any(),
            }}
            {move || {
                let mode = last_played.get()?;
                let (first, best) = last_boards.with(|boards| genda_boards(mode, boards))?;
                Some(view! { <TextBoards mode first best delivered refreshes/> })
            }}
        </section>
    }
}

/// The 跟打 boards of the last game, if it has any: its first-only board (a loaded
/// text's 首打 or the day's race) and, for a loaded text, its best board.
fn genda_boards(mode: Mode, boards: &[GameBoard]) -> Option<(TextBoardRef, Option<TextBoardRef>)> {
    boards.iter().find_map(|board| match *board {
        GameBoard::TextFirst { text } => Some((
            TextBoardRef::Text {
                text,
                ranking: Ranking::First,
            },
            Some(TextBoardRef::Text {
                text,
                ranking: Ranking::Best,
            }),
        )),
        GameBoard::DailyFirst { day } => Some((
            TextBoardRef::Daily {
                day,
                language: mode.language(),
            },
            None,
        )),
        GameBoard::Mode | GameBoard::TextBest { .. } | GameBoard::OptionsBest { .. } => None,
    })
}

/// A loaded text's 首打 and best boards, or the day's race, with the text's link.
#[component]
fn TextBoards(
    mode: Mode,
    first: TextBoardRef,
    best: Option<TextBoardRef>,
    /// Fetched again as [`Leaderboard`] is: on deliveries and on Refresh.
    delivered: Signal<u64>,
    refreshes: ReadSignal<u32>,
) -> impl IntoView {
    let (shown, set_shown) = signal(first);
    let fetched = LocalResource::new(move || {
        delivered.track();
        refreshes.track();
        api::text_board(shown.get())
    });
    let link = match first {
        TextBoardRef::Text { text, .. } => Some(format!("/t/{}", text.short())),
        TextBoardRef::Daily { .. } => None,
    };
    let tab = move |board: TextBoardRef, label: &'static str, id: &'static str| {
        view! {
            <button
                role="tab"
                aria-selected=move || (shown.get() == board).to_string()
                data-testid=format!("text-board-{id}")
                on:click=move |_| set_shown.set(board)
            >{label}</button>
        }
    };
    view! {
        <div class="text-boards" data-testid="text-boards">
            <h3 lang="zh-Hans">{if best.is_some() { "同文榜 · This text" } else { "今日赛文 · Today's race" }}</h3>
            <div role="tablist">
                {tab(first, "首打 · First", "first")}
                {best.map(|best| tab(best, "Best", "best"))}
            </div>
            {link.map(|link| view! {
                <p class="text-link">"Link to this text: " <a href=link.clone() data-testid="text-link">{link.clone()}</a></p>
            })}
            {move || match fetched.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                Some(Err(unavailable)) => view! {
                    <p class="muted" data-testid="text-board-unavailable">{unavailable_words(unavailable)}</p>
                }.into_any(),
                Some(Ok(board)) => text_table(mode, board).into_any(),
            }}
        </div>
    }
}

fn text_table(mode: Mode, board: TextBoard) -> impl IntoView {
    let own_rank = board.me.as_ref().map(|m| m.rank);
    let empty = board.entries.is_empty().then(|| {
        view! { <p class="muted" data-testid="text-board-empty">"No verified results here yet."</p> }
    });
    view! {
        <table>
            <thead><tr><th scope="col">"#"</th><th scope="col">"Player"</th><th scope="col">{mode.speed_unit()}</th><th scope="col">"Replay"</th></tr></thead>
            <tbody>
                {board.entries.into_iter().map(|e| {
                    let mine = Some(e.rank) == own_rank;
                    view! {
                        <tr data-testid="text-board-entry" data-value=e.value data-code=e.code.clone() class:me=mine>
                            <td>{e.rank}</td>
                            <td><bdi class="player-name">{e.display_name}</bdi>
                                {e.name_suffix.map(|tag| view! { " " <span class="name-suffix" translate="no">{format!("#{tag}")}</span> })}
                                {mine.then_some(" (you)")}</td>
                            <td>{value_digits(e.value)}</td>
                            <td>{e.code.clone().map(|code| view! { <a href=format!("/r/{code}")>{code.clone()}</a> })}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        {empty}
    }
}

fn table(fetched: Fetched) -> impl IntoView {
    let mode = fetched.mode;
    let me = fetched.me.clone();
    let own_rank = me.as_ref().map(|m| m.rank);
    let caption = match fetched.board {
        Board::Weekly => format!("Week {}", week_label(fetched.week)),
        Board::Alltime => "All time".to_owned(),
    };
    let empty = fetched.entries.is_empty().then(|| {
        view! { <p class="muted" data-testid="leaderboard-empty">"No scores here yet. Be the first."</p> }
    });
    let below_list = me
        .filter(|m| !fetched.entries.iter().any(|e| e.rank == m.rank))
        .map(|OwnRank { rank, value, .. }| {
            view! { <p class="own-rank" data-testid="own-rank">{format!("You: #{rank} with {}", mode.format_value(value))}</p> }
        });
    view! {
        <table>
            <caption>{caption}</caption>
            <thead><tr><th scope="col">"#"</th><th scope="col">"Player"</th><th scope="col" data-testid="leaderboard-unit">{mode.speed_unit()}</th></tr></thead>
            <tbody>
                {fetched
                    .entries
                    .into_iter()
                    .map(|e| {
                        let mine = Some(e.rank) == own_rank;
                        view! {
                            <tr data-testid="leaderboard" data-value=e.value class:me=mine>
                                <td>{e.rank}</td>
                                // Isolated: no name can reorder the row around it.
                                <td><bdi class="player-name" data-testid="player-name">{e.display_name}</bdi>
                                    // A look-alike name's player tag (docs/replay.md, "Display names").
                                    {e.name_suffix.map(|tag| view! { " " <span class="name-suffix" data-testid="name-suffix" translate="no">{format!("#{tag}")}</span> })}
                                    {mine.then_some(" (you)")}</td>
                                <td>{value_digits(e.value)}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
        {empty}
        {below_list}
    }
}

/// Why the board is missing, in words.
fn unavailable_words(unavailable: BoardUnavailable) -> String {
    match unavailable {
        BoardUnavailable::Offline => "You are offline. The leaderboard needs a connection; \
             your scores are kept and will be sent."
            .to_owned(),
        BoardUnavailable::TimedOut => {
            "The server took too long to answer. Try again later.".to_owned()
        }
        BoardUnavailable::Unreadable => {
            "The server's answer could not be read. Try again later.".to_owned()
        }
        BoardUnavailable::Refused(Some(message)) => message,
        BoardUnavailable::Refused(None) => {
            "The leaderboard is briefly unavailable. Try again later.".to_owned()
        }
    }
}
