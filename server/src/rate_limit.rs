//! Step 3 of the API pipeline: per-process rate limits, spent before any body is read.
//!
//! Best effort by design (docs/api.md): each process counts on its own; the hard limits on
//! write amplification are the one-row-per-(player, mode) upsert and the body cap.
//! Limits are GCRA buckets from `governor`: a client may burst up to its per-minute
//! limit and earns requests back at that rate. Save creation is stricter: a burst of
//! `n`, then one per minute, so no 60 seconds ever see more than `n` new saves from
//! one address; from IPv6 also per /56 and per /48, since one subscriber is usually
//! delegated a whole /56 or /48 and could otherwise create saves from each of its /64s
//! (docs/api.md, "Rate limits"). Using link codes is stricter still: [`LINK_ATTEMPTS`] at once, then one
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
use std::num::NonZeroU32;
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
    /// Save creations per wider IPv6 prefix, narrowest first.
    save_creations_per_prefix: [(u8, Limit, DefaultKeyedRateLimiter<Ipv6Addr>); 2],
    link_attempts: DefaultKeyedRateLimiter<IpAddr>,
    held_per_save: DefaultKeyedRateLimiter<Uuid>,
    held_per_ip: DefaultKeyedRateLimiter<IpAddr>,
    texts_per_save: DefaultKeyedRateLimiter<Uuid>,
    texts_per_ip: DefaultKeyedRateLimiter<IpAddr>,
}

impl RateLimiters {
    pub fn new(limits: RateLimits) -> Self {
        RateLimiters {
            per_ip: RateLimiter::keyed(Quota::per_minute(limits.per_ip_per_minute)),
            per_identity: RateLimiter::keyed(Quota::per_minute(limits.per_identity_per_minute)),
            save_creations: RateLimiter::keyed(burst_per_minute(limits.save_creations_per_minute)),
            save_creations_per_prefix: [
                (
                    56,
                    Limit::SaveCreationsPer56,
                    RateLimiter::keyed(burst_per_minute(limits.save_creations_per_56_per_minute)),
                ),
                (
                    48,
                    Limit::SaveCreationsPer48,
                    RateLimiter::keyed(burst_per_minute(limits.save_creations_per_48_per_minute)),
                ),
            ],
            link_attempts: RateLimiter::keyed(burst_per_minute(
                LINK_ATTEMPTS.try_into().expect("not zero"),
            )),
            held_per_save: RateLimiter::keyed(Quota::per_minute(limits.held_per_save_per_minute)),
            held_per_ip: RateLimiter::keyed(Quota::per_minute(limits.held_per_ip_per_minute)),
            texts_per_save: RateLimiter::keyed(Quota::per_hour(limits.texts_per_save_per_hour)),
            texts_per_ip: RateLimiter::keyed(Quota::per_hour(limits.texts_per_ip_per_hour)),
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

    /// One save creation: from the client's address (IPv6: its /64), then from its
    /// /56 and its /48. Narrowest first, so a client over its own limit spends nothing
    /// of its neighbours' wider budgets.
    pub fn spend_save_creation(&self, ip: IpAddr) -> Result<(), ApiError> {
        let key = client_key(ip);
        self.save_creations
            .check_key(&key)
            .map_err(|_| refused(Limit::SaveCreations))?;
        if let IpAddr::V6(ip) = key {
            for (prefix, limit, limiter) in &self.save_creations_per_prefix {
                limiter
                    .check_key(&ipv6_prefix(ip, *prefix))
                    .map_err(|_| refused(*limit))?;
            }
        }
        Ok(())
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

    /// One new text stored by this save and address (docs/api.md, "Rate limits"),
    /// spent only once the text is known to be new.
    pub fn spend_new_text(&self, player_id: Uuid, ip: IpAddr) -> Result<(), ApiError> {
        self.texts_per_save
            .check_key(&player_id)
            .map_err(|_| too_many_texts(Limit::TextsPerSave))?;
        self.texts_per_ip
            .check_key(&client_key(ip))
            .map_err(|_| too_many_texts(Limit::TextsPerIp))
    }

    /// Drops the state of clients whose buckets are full again, so the maps do not
    /// grow with every address ever seen. Run it periodically.
    pub fn forget_idle_clients(&self) {
        forget_idle(&self.per_ip);
        forget_idle(&self.per_identity);
        forget_idle(&self.save_creations);
        for (_, _, limiter) in &self.save_creations_per_prefix {
            forget_idle(limiter);
        }
        forget_idle(&self.link_attempts);
        forget_idle(&self.held_per_save);
        forget_idle(&self.held_per_ip);
        forget_idle(&self.texts_per_save);
        forget_idle(&self.texts_per_ip);
    }
}

/// A burst of `n`, then one a minute.
fn burst_per_minute(n: NonZeroU32) -> Quota {
    Quota::with_period(MINUTE)
        .expect("a minute is not zero")
        .allow_burst(n)
}

fn refused(limit: Limit) -> ApiError {
    metrics().rate_limited(limit);
    ApiError::rate_limited()
}

fn too_many_texts(limit: Limit) -> ApiError {
    metrics().rate_limited(limit);
    ApiError::too_many_texts()
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
            None => IpAddr::V6(ipv6_prefix(ip, 64)),
        },
        ip => ip,
    }
}

/// The first `bits` bits of `ip`, the rest zero: the /`bits` network it is in.
fn ipv6_prefix(ip: Ipv6Addr, bits: u8) -> Ipv6Addr {
    Ipv6Addr::from(u128::from(ip) & !(u128::MAX >> bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    /// Wider prefixes with budgets that never bind.
    fn limiters(per_ip: u32, per_identity: u32, saves: u32) -> RateLimiters {
        prefix_limiters(per_ip, per_identity, [saves, 1_000, 1_000])
    }

    /// Save creations per /64, /56 and /48.
    fn prefix_limiters(per_ip: u32, per_identity: u32, saves: [u32; 3]) -> RateLimiters {
        RateLimiters::new(RateLimits {
            per_ip_per_minute: n(per_ip),
            per_identity_per_minute: n(per_identity),
            save_creations_per_minute: n(saves[0]),
            save_creations_per_56_per_minute: n(saves[1]),
            save_creations_per_48_per_minute: n(saves[2]),
            held_per_save_per_minute: n(2),
            held_per_ip_per_minute: n(3),
            texts_per_save_per_hour: n(2),
            texts_per_ip_per_hour: n(3),
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
    fn new_texts_are_limited_per_save_then_per_address() {
        let limiters = limiters(10, 10, 2);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let (p1, p2) = (Uuid::from_u128(1), Uuid::from_u128(2));
        limiters.spend_new_text(p1, a).unwrap();
        limiters.spend_new_text(p1, a).unwrap();
        let error = limiters.spend_new_text(p1, b).unwrap_err();
        assert_eq!(
            (error.code, error.status.as_u16()),
            (keydo_core::api::ApiCode::TooManyTexts, 429)
        );
        // Another save from the same address: its own budget, the address's third.
        limiters.spend_new_text(p2, a).unwrap();
        assert!(limiters.spend_new_text(p2, a).is_err());
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

    #[test]
    fn ipv6_prefixes_are_masked() {
        let ip = |text: &str| text.parse::<Ipv6Addr>().unwrap();
        let address = ip("2001:db8:abcd:12ff:1:2:3:4");
        assert_eq!(ipv6_prefix(address, 64), ip("2001:db8:abcd:12ff::"));
        assert_eq!(ipv6_prefix(address, 56), ip("2001:db8:abcd:1200::"));
        assert_eq!(ipv6_prefix(address, 48), ip("2001:db8:abcd::"));
    }

    #[test]
    fn save_creation_is_limited_per_56_across_its_64s() {
        let limiters = prefix_limiters(100, 100, [2, 3, 100]);
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        // Three /64s of one /56: each within its own budget, the /56 allows 3.
        limiters
            .spend_save_creation(ip("2001:db8:1:100::1"))
            .unwrap();
        limiters
            .spend_save_creation(ip("2001:db8:1:101::1"))
            .unwrap();
        limiters
            .spend_save_creation(ip("2001:db8:1:1ff::1"))
            .unwrap();
        let error = limiters
            .spend_save_creation(ip("2001:db8:1:102::1"))
            .unwrap_err();
        assert_eq!(error.code, keydo_core::api::ApiCode::RateLimited);
        // The next /56 of the same /48 has its own budget.
        limiters
            .spend_save_creation(ip("2001:db8:1:200::1"))
            .unwrap();
        // IPv4 has no wider prefix: addresses of one /24 do not share.
        for last in 1..=5 {
            limiters
                .spend_save_creation(ip(&format!("192.0.2.{last}")))
                .unwrap();
        }
    }

    #[test]
    fn save_creation_is_limited_per_48_across_its_56s() {
        let limiters = prefix_limiters(100, 100, [2, 2, 3]);
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        limiters
            .spend_save_creation(ip("2001:db8:7:100::1"))
            .unwrap();
        limiters
            .spend_save_creation(ip("2001:db8:7:200::1"))
            .unwrap();
        limiters
            .spend_save_creation(ip("2001:db8:7:ff00::1"))
            .unwrap();
        assert!(
            limiters
                .spend_save_creation(ip("2001:db8:7:300::1"))
                .is_err()
        );
        limiters
            .spend_save_creation(ip("2001:db8:8:100::1"))
            .unwrap();
    }

    #[test]
    fn a_64_over_its_limit_spends_nothing_of_its_prefixes() {
        let limiters = prefix_limiters(100, 100, [1, 2, 2]);
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        let noisy = ip("2001:db8:9:100::1");
        limiters.spend_save_creation(noisy).unwrap();
        for _ in 0..10 {
            assert!(limiters.spend_save_creation(noisy).is_err());
        }
        // The /56 (and /48) still have one creation left for a neighbour.
        limiters
            .spend_save_creation(ip("2001:db8:9:101::1"))
            .unwrap();
        assert!(
            limiters
                .spend_save_creation(ip("2001:db8:9:102::1"))
                .is_err()
        );
    }
}
