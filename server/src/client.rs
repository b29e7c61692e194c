//! Which address a request comes from: the TCP peer, or, when the peer is one of the
//! operator's trusted proxies (`--trusted-proxies`), the client that proxy reports.
//!
//! Proxies append the address they received a request from to `Forwarded` (RFC 7239)
//! or `X-Forwarded-For`, so the list reads client, proxy, proxy... left to right, and
//! anything left of an untrusted hop may have been written by the client itself. The
//! client is therefore the right-most address that is not a trusted proxy. `Forwarded`
//! wins when both are present; a proxy in front of KeyDo must append to (or replace)
//! the header it uses and drop the other (see deploy/nginx.conf). An entry that is not
//! an address (`unknown`, an obfuscated name) ends the walk at the proxy that wrote it.

use axum::extract::{ConnectInfo, Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The address a request is attributed to (rate limits key on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

/// The networks whose forwarding headers are believed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    pub fn new(networks: Vec<IpNet>) -> Self {
        TrustedProxies(networks.iter().map(IpNet::trunc).collect())
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|network| network.contains(&ip))
    }

    /// The client of a request that arrived from `peer` carrying `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = canonical(peer);
        if !self.trusts(client) {
            return client;
        }
        for hop in forwarded_for(headers).into_iter().rev() {
            match hop {
                Some(ip) => client = canonical(ip),
                None => break,
            }
            if !self.trusts(client) {
                break;
            }
        }
        client
    }
}

/// A `--trusted-proxies` entry: a network (`10.0.0.0/8`) or one address.
pub fn parse_network(entry: &str) -> Result<IpNet, String> {
    let entry = entry.trim();
    entry
        .parse::<IpNet>()
        .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{entry:?} is neither an address nor a network such as 10.0.0.0/8"))
}

/// Middleware: attaches the [`ClientIp`] every later step uses.
pub async fn identify(
    State(proxies): State<Arc<TrustedProxies>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let client = proxies.client(peer.ip(), request.headers());
    request.extensions_mut().insert(ClientIp(client));
    next.run(request).await
}

/// IPv4 peers of a dual-stack socket arrive as `::ffff:a.b.c.d`.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The hops a request passed, left to right, from `Forwarded` if present, else from
/// `X-Forwarded-For`. `None` stands for an entry that is not an address.
fn forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let forwarded = headers.get_all("forwarded");
    if forwarded.iter().next().is_some() {
        return forwarded
            .iter()
            .flat_map(|value| split_outside_quotes(value.to_str().unwrap_or("\u{0}"), ','))
            .map(|element| {
                split_outside_quotes(element, ';')
                    .into_iter()
                    .filter_map(|pair| pair.split_once('='))
                    .find(|(name, _)| name.trim().eq_ignore_ascii_case("for"))
                    .and_then(|(_, value)| node_address(value.trim().trim_matches('"')))
            })
            .collect();
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|value| value.to_str().unwrap_or("\u{0}").split(','))
        .map(|entry| node_address(entry.trim()))
        .collect()
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]` or `[2001:db8::1]:4711`.
fn node_address(node: &str) -> Option<IpAddr> {
    node.parse::<IpAddr>()
        .or_else(|_| node.parse::<SocketAddr>().map(|socket| socket.ip()))
        .ok()
        .or_else(|| node.strip_prefix('[')?.strip_suffix(']')?.parse().ok())
}

/// `text` split at `separator`, except inside double quotes (RFC 7239 quoted strings).
fn split_outside_quotes(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (index, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            c if c == separator && !quoted => {
                parts.push(&text[start..index]);
                start = index + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies::new(list.iter().map(|n| parse_network(n).unwrap()).collect())
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_claims() {
        let trusted = proxies(&["10.0.0.0/8"]);
        let forged = headers(&[
            ("x-forwarded-for", "198.51.100.1"),
            ("forwarded", "for=198.51.100.2"),
        ]);
        assert_eq!(trusted.client(ip("192.0.2.7"), &forged), ip("192.0.2.7"));
        assert_eq!(
            TrustedProxies::default().client(ip("127.0.0.1"), &forged),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn behind_trusted_proxies_the_rightmost_untrusted_address_is_the_client() {
        let trusted = proxies(&["10.0.0.0/8", "127.0.0.1"]);
        let peer = ip("127.0.0.1");
        // The client forged the first entry; the proxies appended the rest.
        let chain = headers(&[("x-forwarded-for", "6.6.6.6, 203.0.113.9, 10.1.2.3")]);
        assert_eq!(trusted.client(peer, &chain), ip("203.0.113.9"));
        let split = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "203.0.113.9"),
        ]);
        assert_eq!(trusted.client(peer, &split), ip("203.0.113.9"));
        let all_trusted = headers(&[("x-forwarded-for", "10.9.9.9, 10.1.2.3")]);
        assert_eq!(trusted.client(peer, &all_trusted), ip("10.9.9.9"));
        assert_eq!(trusted.client(peer, &HeaderMap::new()), peer);
    }

    #[test]
    fn forwarded_is_read_with_quotes_ports_and_ipv6() {
        let trusted = proxies(&["127.0.0.0/8"]);
        let peer = ip("127.0.0.1");
        let cases = [
            ("for=192.0.2.60;proto=http;by=203.0.113.43", "192.0.2.60"),
            (
                "for=\"[2001:db8:cafe::17]:4711\", for=127.0.0.2",
                "2001:db8:cafe::17",
            ),
            ("For=\"198.51.100.3:80\";proto=https", "198.51.100.3"),
            ("for=\"_hidden\", for=127.0.0.5", "127.0.0.5"),
            ("for=unknown", "127.0.0.1"),
            ("for=1.1.1.1;by=\"a;b,c\", for=2.2.2.2", "2.2.2.2"),
        ];
        for (value, client) in cases {
            let forwarded = headers(&[("forwarded", value), ("x-forwarded-for", "9.9.9.9")]);
            assert_eq!(trusted.client(peer, &forwarded), ip(client), "{value}");
        }
    }

    #[test]
    fn mapped_ipv4_peers_match_ipv4_networks() {
        let trusted = proxies(&["127.0.0.1"]);
        let forwarded = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(
            trusted.client(ip("::ffff:127.0.0.1"), &forwarded),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn networks_and_single_addresses_parse() {
        assert_eq!(
            parse_network("10.1.2.3/8").unwrap().to_string(),
            "10.1.2.3/8"
        );
        assert!(proxies(&["10.1.2.3/8"]).trusts(ip("10.200.0.1")));
        assert!(proxies(&["::1"]).trusts(ip("::1")));
        assert!(!proxies(&["::1"]).trusts(ip("::2")));
        for bad in ["", "10.0.0.0/33", "localhost", "10.0.0"] {
            assert!(parse_network(bad).is_err(), "{bad}");
        }
    }
}
