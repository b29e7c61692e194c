//! The leaderboards, per mode, weekly and all-time, fetched live.
//!
//! Never cached (the service worker leaves `/api` alone): offline, the board says
//! so instead of showing stale ranks. The player's own row is highlighted, and
//! their rank is shown even when it is below the list.

use gloo_net::http::Request;
use keydo_core::Mode;
use keydo_core::api::{Board, ErrorBody, Leaderboard as Board_, OwnRank};
use keydo_core::week::week_label;
use keydo_storage::{Credentials, Db};
use leptos::prelude::*;

/// Why the board cannot be shown.
#[derive(Debug, Clone, PartialEq)]
enum Unavailable {
    Offline,
    Server(String),
}

#[component]
pub fn Leaderboard(
    /// Changes whenever the outbox changes, so a delivered score shows up.
    #[prop(into)]
    outbox_changed: Signal<usize>,
) -> impl IntoView {
    let (mode, set_mode) = signal(Mode::Time);
    let (board, set_board) = signal(Board::Weekly);
    let (refreshes, set_refreshes) = signal(0u32);
    let fetched = LocalResource::new(move || {
        outbox_changed.track();
        refreshes.track();
        fetch_board(mode.get(), board.get())
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
                            .map(|m| view! { <option value=m.id()>{m.id()}</option> })
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
                Some(Err(Unavailable::Offline)) => view! {
                    <p class="muted" data-testid="leaderboard-offline">
                        "You are offline. The leaderboard needs a connection; your scores are kept and will be sent."
                    </p>
                }.into_any(),
                Some(Err(Unavailable::Server(words))) => view! {
                    <p class="muted" data-testid="leaderboard-error">{words}</p>
                }.into_any(),
                Some(Ok(fetched)) => table(fetched).into_any(),
            }}
        </section>
    }
}

fn table(fetched: Board_) -> impl IntoView {
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
            view! { <p class="own-rank" data-testid="own-rank">{format!("You: #{rank} with {value}")}</p> }
        });
    view! {
        <table>
            <caption>{caption}</caption>
            <thead><tr><th scope="col">"#"</th><th scope="col">"Player"</th><th scope="col">"Score"</th></tr></thead>
            <tbody>
                {fetched
                    .entries
                    .into_iter()
                    .map(|e| {
                        let mine = Some(e.rank) == own_rank;
                        view! {
                            <tr data-testid="leaderboard" data-value=e.value class:me=mine>
                                <td>{e.rank}</td>
                                <td>{e.display_name}{mine.then_some(" (you)")}</td>
                                <td>{e.value}</td>
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

async fn fetch_board(mode: Mode, board: Board) -> Result<Board_, Unavailable> {
    if !window().navigator().on_line() {
        return Err(Unavailable::Offline);
    }
    let credentials = match Db::open().await {
        Ok(db) => db.credentials().await.ok().flatten(),
        Err(_) => None,
    };
    let url = format!("/api/leaderboard?mode={}&board={}", mode.id(), board.id());
    let send = |credentials: Option<Credentials>| {
        let mut request = Request::get(&url);
        if let Some(credentials) = credentials {
            request = request.header("Authorization", &format!("Bearer {}", credentials.token));
        }
        request.send()
    };
    let mut response = send(credentials).await.map_err(|_| Unavailable::Offline)?;
    if response.status() == 401 && credentials.is_some() {
        // The server no longer knows this save (the sync renews it with the next
        // score): the board itself is public, so show it without the own rank.
        response = send(None).await.map_err(|_| Unavailable::Offline)?;
    }
    if response.ok() {
        return response.json().await.map_err(|_| {
            Unavailable::Server("The server's answer could not be read. Try again later.".into())
        });
    }
    let message = response
        .json::<ErrorBody>()
        .await
        .map(|b| b.error.message)
        .unwrap_or_else(|_| "The leaderboard is briefly unavailable. Try again later.".into());
    Err(Unavailable::Server(message))
}
