//! Step 3 of the API pipeline: per-process rate limits, spent before any body is read.
//!
//! Best effort by design (docs/api.md): each process counts on its own; the hard limits on
//! write amplification are the one-row-per-(player, mode) upsert and the body cap.
//! Limits are GCRA buckets from `governor`: a client may burst up to its per-minute
//! limit and earns requests back at that rate. Save creation is stricter: a burst of
//! `n`, then one per minute, so no 60 seconds ever see more than `n` new saves from
//! one address. Using link codes is stricter still: [`LINK_ATTEMPTS`] at once, then one
//! a minute, per address, so codes cannot be guessed. Held results have budgets of
//! their own, per save and per address, spent only once a result is known to be held
//! (docs/replay.md, "The review queue"). The client is the [`ClientIp`]: the TCP peer, or behind trusted
//! proxies the address they forward (see [`crate::client`]).

use crate::client::ClientIp;
use crate::error::ApiError;
use crate::metrics::{Limit, metrics};
use crate::settings::RateLimits;
use crate::store::Caller;
use axum::extract::{Extension, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

const MINUTE: Duration = Duration::from_secs(60);
/// Link-code attempts an address may make at once; one more each minute after
/// (docs/api.md, "Devices"): at most 20 in any 10 minutes, against 2^50 codes.
pub const LINK_ATTEMPTS: u32 = 10;

/// The keyed limiters.
pub struct RateLimiters {
    per_ip: DefaultKeyedRateLimiter<IpAddr>,
    per_identity: DefaultKeyedRateLimiter<Uuid>,
    save_creations: DefaultKeyedRateLimiter<IpAddr>,
    link_attempts: DefaultKeyedRateLimiter<IpAddr>,
    held_per_save: DefaultKeyedRateLimiter<Uuid>,
    held_per_ip: DefaultKeyedRateLimiter<IpAddr>,
}

impl RateLimiters {
    pub fn new(limits: RateLimits) -> Self {
        RateLimiters {
            per_ip: RateLimiter::keyed(Quota::per_minute(limits.per_ip_per_minute)),
            per_identity: RateLimiter::keyed(Quota::per_minute(limits.per_identity_per_minute)),
            save_creations: RateLimiter::keyed(
                Quota::with_period(MINUTE)
                    .expect("a minute is not zero")
                    .allow_burst(limits.save_creations_per_minute),
            ),
            link_attempts: RateLimiter::keyed(
                Quota::with_period(MINUTE)
                    .expect("a minute is not zero")
                    .allow_burst(LINK_ATTEMPTS.try_into().expect("not zero")),
            ),
            held_per_save: RateLimiter::keyed(Quota::per_minute(limits.held_per_save_per_minute)),
            held_per_ip: RateLimiter::keyed(Quota::per_minute(limits.held_per_ip_per_minute)),
        }
    }

    pub fn spend_ip(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.per_ip
            .check_key(&client_key(ip))
            .map_err(|_| refused(Limit::PerIp))
    }

    pub fn spend_identity(&self, player_id: Uuid) -> Result<(), ApiError> {
        self.per_identity
            .check_key(&player_id)
            .map_err(|_| refused(Limit::PerIdentity))
    }

    pub fn spend_save_creation(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.save_creations
            .check_key(&client_key(ip))
            .map_err(|_| refused(Limit::SaveCreations))
    }

    /// One attempt to use a link code (a replay of a linked device spends none).
    pub fn spend_link_attempt(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.link_attempts
            .check_key(&client_key(ip))
            .map_err(|_| refused(Limit::LinkAttempts))
    }

    /// One held result from this save and address (docs/replay.md, "The review
    /// queue"), spent only once the result is known to be held.
    pub fn spend_held(&self, player_id: Uuid, ip: IpAddr) -> Result<(), ApiError> {
        self.held_per_save
            .check_key(&player_id)
            .map_err(|_| refused(Limit::HeldPerSave))?;
        self.held_per_ip
            .check_key(&client_key(ip))
            .map_err(|_| refused(Limit::HeldPerIp))
    }

    /// Drops the state of clients whose buckets are full again, so the maps do not
    /// grow with every address ever seen. Run it periodically.
    pub fn forget_idle_clients(&self) {
        forget_idle(&self.per_ip);
        forget_idle(&self.per_identity);
        forget_idle(&self.save_creations);
        forget_idle(&self.link_attempts);
        forget_idle(&self.held_per_save);
        forget_idle(&self.held_per_ip);
    }
}

fn refused(limit: Limit) -> ApiError {
    metrics().rate_limited(limit);
    ApiError::rate_limited()
}

fn forget_idle<K: Clone + Eq + std::hash::Hash>(limiter: &DefaultKeyedRateLimiter<K>) {
    limiter.retain_recent();
    limiter.shrink_to_fit();
}

/// Middleware: per IP, then per identity (when the request carries one).
pub async fn spend(
    State(limiters): State<Arc<RateLimiters>>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    limiters.spend_ip(client)?;
    if let Some(caller) = request.extensions().get::<Caller>() {
        limiters.spend_identity(caller.player_id)?;
    }
    Ok(next.run(request).await)
}

/// Middleware for `POST /api/saves`: the save-creation limit.
pub async fn spend_save_creation(
    State(limiters): State<Arc<RateLimiters>>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    limiters.spend_save_creation(client)?;
    Ok(next.run(request).await)
}

/// The key a client is counted under: its IPv4 address, or its IPv6 /64 (one host
/// usually owns a whole /64 and could otherwise rotate addresses at will).
fn client_key(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(ipv4) => IpAddr::V4(ipv4),
            None => {
                let [a, b, c, d, ..] = ip.segments();
                IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
            }
        },
        ip => ip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    fn limiters(per_ip: u32, per_identity: u32, saves: u32) -> RateLimiters {
        let n = |n| NonZeroU32::new(n).unwrap();
        RateLimiters::new(RateLimits {
            per_ip_per_minute: n(per_ip),
            per_identity_per_minute: n(per_identity),
            save_creations_per_minute: n(saves),
            held_per_save_per_minute: n(2),
            held_per_ip_per_minute: n(3),
        })
    }

    #[test]
    fn each_key_has_its_own_budget() {
        let limiters = limiters(3, 2, 2);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        for _ in 0..3 {
            limiters.spend_ip(a).unwrap();
        }
        assert_eq!(
            limiters.spend_ip(a).unwrap_err().code,
            keydo_core::api::ApiCode::RateLimited
        );
        limiters.spend_ip(b).unwrap();
        let (p1, p2) = (Uuid::from_u128(1), Uuid::from_u128(2));
        limiters.spend_identity(p1).unwrap();
        limiters.spend_identity(p1).unwrap();
        assert!(limiters.spend_identity(p1).is_err());
        limiters.spend_identity(p2).unwrap();
    }

    #[test]
    fn save_creation_allows_exactly_the_burst() {
        let limiters = limiters(100, 100, 2);
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        limiters.spend_save_creation(ip).unwrap();
        limiters.spend_save_creation(ip).unwrap();
        assert!(limiters.spend_save_creation(ip).is_err());
    }

    #[test]
    fn held_results_spend_the_save_and_the_address() {
        let limiters = limiters(100, 100, 100);
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let (p1, p2) = (Uuid::from_u128(1), Uuid::from_u128(2));
        limiters.spend_held(p1, ip).unwrap();
        limiters.spend_held(p1, ip).unwrap();
        assert!(limiters.spend_held(p1, ip).is_err(), "the save's budget");
        limiters.spend_held(p2, ip).unwrap();
        assert!(limiters.spend_held(p2, ip).is_err(), "the address's budget");
        limiters
            .spend_held(Uuid::from_u128(3), "192.0.2.2".parse().unwrap())
            .unwrap();
    }

    #[test]
    fn ipv6_clients_are_counted_per_64() {
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        let (a, b) = (ip("2001:db8:1:2:aaaa::1"), ip("2001:db8:1:2:bbbb::2"));
        let other = ip("2001:db8:1:3::1");
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(other));
        assert_eq!(client_key(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));

        // One /64 shares its budgets, for requests and for new saves alike.
        let limiters = limiters(2, 100, 1);
        limiters.spend_ip(a).unwrap();
        limiters.spend_ip(b).unwrap();
        assert!(limiters.spend_ip(ip("2001:db8:1:2::3")).is_err());
        limiters.spend_ip(other).unwrap();
        limiters.spend_save_creation(a).unwrap();
        assert!(limiters.spend_save_creation(b).is_err());
        limiters.spend_save_creation(other).unwrap();
    }
}
