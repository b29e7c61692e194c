//! `/admin`: the operator's review queue as a small server-rendered page (docs/replay.md,
//! "Moderation"), so no decision needs SQL or a terminal. Plain HTML: no script, no
//! style, so the site's Content-Security-Policy holds as it is.
//!
//! - `GET /admin`: held results grouped by player, the best first, with the figures
//!   that decide them and a button to approve each or hide its player;
//! - `GET /admin/replay/{player}/{score}`: what a held result's log typed, and when;
//! - `POST /admin/approve` (`player`, `score`) and `POST /admin/hide` (`player`): then
//!   back to the queue.
//!
//! Off (404) unless an operator token is set (`--admin-token` / `KEYDO_ADMIN_TOKEN`,
//! [`crate::operator_token`]).
//! Every request must carry it as the password of HTTP Basic authentication (any user
//! name), compared in constant time; else 401 with a `WWW-Authenticate` challenge, so a
//! browser asks for it. Requests are counted against the per-address rate limit and
//! refused from foreign origins like the API's; every POST must also carry the form
//! token the page embeds (derived from the operator token, so another site cannot know
//! it), which stops cross-site form posts that ride on the browser's remembered
//! credentials. Answers are never cached; refusals are the API's error bodies, with
//! their stable codes.

use crate::error::ApiError;
use crate::replay_view::{self, received, speed};
use crate::state::AppState;
use crate::store::{Approval, ListedResult, Listing};
use crate::{origin, rate_limit};
use axum::Router;
use axum::extract::rejection::{FormRejection, PathRejection};
use axum::extract::{Form, Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use html_escape::encode_text as html;
use keydo_core::api::ApiCode;
use serde::Deserialize;
use std::fmt::Write as _;
use tower::ServiceBuilder;
use tower_http::set_header::SetResponseHeaderLayer;
use uuid::Uuid;

/// How many held results the page lists.
const QUEUE_PAGE: i64 = 200;

/// The `/admin` routes, behind their checks.
pub fn routes(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/admin", get(queue))
        .route("/admin/replay/{player}/{score}", get(replay))
        .route("/admin/approve", post(approve))
        .route("/admin/hide", post(hide))
        .layer(
            ServiceBuilder::new()
                .layer(from_fn_with_state(state.clone(), origin::check))
                .layer(from_fn_with_state(state.clone(), rate_limit::spend))
                .layer(from_fn_with_state(state.clone(), authorize)),
        )
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}

/// Middleware: the page exists only with a token, and answers only to it.
async fn authorize(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let Some(token) = &state.settings.admin_token else {
        return Err(ApiError::not_found());
    };
    let password = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(basic_password);
    if !password.is_some_and(|password| token.admits(&password)) {
        let mut response = ApiError::new(
            ApiCode::Unauthorized,
            "The review page needs the operator's token as its password.",
        )
        .into_response();
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"KeyDo review\", charset=\"UTF-8\""),
        );
        return Ok(response);
    }
    Ok(next.run(request).await)
}

/// The password of `Basic <base64(user:password)>`.
fn basic_password(authorization: &str) -> Option<String> {
    let (scheme, encoded) = authorization.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(BASE64.decode(encoded.trim()).ok()?).ok()?;
    let (_user, password) = decoded.split_once(':')?;
    Some(password.to_owned())
}

async fn queue(State(state): State<AppState>) -> Result<Html<String>, ApiError> {
    let queue = state.store.list_results(Listing::Queue, QUEUE_PAGE).await?;
    let token = state.settings.admin_token.as_ref().expect("authorized");
    let form_token = token.form_token();
    Ok(Html(page("Review queue", &queue_html(&queue, form_token))))
}

async fn replay(
    State(state): State<AppState>,
    ids: Result<Path<(Uuid, Uuid)>, PathRejection>,
) -> Result<Html<String>, ApiError> {
    let Path((player_id, score_id)) = ids.map_err(|_| ApiError::not_found())?;
    let kept = state
        .store
        .kept_log(player_id, score_id)
        .await?
        .ok_or_else(|| {
            ApiError::new(
                ApiCode::NotFound,
                "No held result with a kept log is at this address.",
            )
        })?;
    let text = replay_view::render(&kept).map_err(ApiError::internal)?;
    Ok(Html(page(
        "Replay",
        &format!(
            "<p><a href=\"/admin\">Back to the queue</a></p>\n<pre>{}</pre>\n",
            html(&text)
        ),
    )))
}

#[derive(Debug, Deserialize)]
struct ApproveForm {
    player: Uuid,
    score: Uuid,
    form_token: String,
}

async fn approve(
    State(state): State<AppState>,
    form: Result<Form<ApproveForm>, FormRejection>,
) -> Result<Redirect, ApiError> {
    let Form(form) = form.map_err(|_| ApiError::invalid_shape())?;
    check_form_token(&state, &form.form_token)?;
    match state.store.approve(form.player, form.score).await? {
        Approval::Approved(_) => Ok(Redirect::to("/admin")),
        Approval::NotHeld => Err(ApiError::new(
            ApiCode::NotFound,
            "That result no longer waits for review.",
        )),
    }
}

#[derive(Debug, Deserialize)]
struct HideForm {
    player: Uuid,
    form_token: String,
}

async fn hide(
    State(state): State<AppState>,
    form: Result<Form<HideForm>, FormRejection>,
) -> Result<Redirect, ApiError> {
    let Form(form) = form.map_err(|_| ApiError::invalid_shape())?;
    check_form_token(&state, &form.form_token)?;
    if !state.store.set_hidden(form.player, true).await? {
        return Err(ApiError::new(ApiCode::NotFound, "No player has this id."));
    }
    Ok(Redirect::to("/admin"))
}

fn check_form_token(state: &AppState, given: &str) -> Result<(), ApiError> {
    let token = state.settings.admin_token.as_ref().expect("authorized");
    if token.admits_form(given) {
        Ok(())
    } else {
        Err(ApiError::new(
            ApiCode::ForbiddenOrigin,
            "This form did not come from the review page; reload it and try again.",
        ))
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>KeyDo · {title}</title></head><body>\n<h1>{title}</h1>\n{body}</body></html>\n"
    )
}

/// One section per player, in the queue's order; a table of their held results.
fn queue_html(queue: &[ListedResult], form_token: &str) -> String {
    if queue.is_empty() {
        return "<p>Nothing waits for review.</p>\n".to_owned();
    }
    let mut body = String::new();
    for (index, result) in queue.iter().enumerate() {
        let first_of_player = index == 0 || queue[index - 1].player_id != result.player_id;
        if first_of_player {
            if index > 0 {
                body.push_str("</tbody></table></section>\n");
            }
            let player = result.player_id.to_string();
            let hidden = hidden_fields(&[("player", &player)], form_token);
            let _ = writeln!(
                body,
                "<section class=\"player\"><h2>{name}</h2>\n<p>player {player}, \
                 {count} verified results</p>\n\
                 <form method=\"post\" action=\"/admin/hide\">{hidden}\
                 <button>Hide this player from the boards</button></form>\n\
                 <table><thead><tr><th>mode</th><th>speed</th><th>holds</th>\
                 <th>public best</th><th>received (UTC)</th><th>replay</th><th></th></tr>\
                 </thead><tbody>",
                name = html(&result.display_name),
                count = result.player_results,
            );
        }
        let public_best = result
            .public_best
            .map_or_else(|| "none".to_owned(), |best| speed(result.mode, best));
        let (player, score) = (result.player_id.to_string(), result.score_id.to_string());
        let hidden = hidden_fields(&[("player", &player), ("score", &score)], form_token);
        let _ = writeln!(
            body,
            "<tr class=\"held\" data-score=\"{score}\"><td>{mode}</td><td>{speed}</td>\
             <td>{holds}</td><td>{public_best}</td><td>{received}</td>\
             <td><a href=\"/admin/replay/{player}/{score}\">replay</a></td>\
             <td><form method=\"post\" action=\"/admin/approve\">{hidden}\
             <button>Approve</button></form></td></tr>",
            mode = result.mode,
            speed = html(&speed(result.mode, result.value)),
            holds = html(&result.holds),
            public_best = html(&public_best),
            received = received(result.received_at),
        );
    }
    body.push_str("</tbody></table></section>\n");
    body
}

fn hidden_fields(fields: &[(&str, &str)], form_token: &str) -> String {
    fields
        .iter()
        .chain([&("form_token", form_token)])
        .map(|(name, value)| format!("<input type=\"hidden\" name=\"{name}\" value=\"{value}\">"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_give_their_password() {
        let header = |credentials: &str| format!("Basic {}", BASE64.encode(credentials));
        assert_eq!(
            basic_password(&header("operator:s3cret:with:colons")).as_deref(),
            Some("s3cret:with:colons")
        );
        assert_eq!(basic_password(&header(":p")).as_deref(), Some("p"));
        assert_eq!(basic_password(&header("no colon")), None);
        assert_eq!(basic_password("Bearer abc"), None);
        assert_eq!(basic_password("Basic !!!"), None);
    }
}
