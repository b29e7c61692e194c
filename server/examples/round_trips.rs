//! What a round trip to PostgreSQL costs, apart from KeyDo's own statements: on
//! `connections` connections (one thread), transactions of nine trivial statements
//! (BEGIN, seven `SELECT $1::int8 + 1` prepared once, COMMIT), either each awaited
//! before the next (`one-at-a-time`: nine round trips) or sent in three flights
//! (`flights`: BEGIN with the first, five together, the last with COMMIT), for
//! `seconds`. Prints the transactions and this process's CPU time in clock ticks
//! (user and system, proc(5)); the caller reads
//! PostgreSQL's (`scripts/bench-postgres.mjs`, part `round-trips`;
//! docs/operations.md, "What sending statements together would save").
//!
//! `cargo run --release -p keydo-server --example round_trips -- <one-at-a-time|flights> <url> <connections> <seconds>`

use futures_util::future::try_join_all;
use std::time::{Duration, Instant};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Statement};

/// The statements between BEGIN and COMMIT.
const STATEMENTS: i64 = 7;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [how, url, connections, seconds] = &args[..] else {
        anyhow::bail!("usage: round_trips <one-at-a-time|flights> <url> <connections> <seconds>");
    };
    let in_flights = match how.as_str() {
        "one-at-a-time" => false,
        "flights" => true,
        other => anyhow::bail!("{other}: one-at-a-time or flights"),
    };
    let deadline = Instant::now() + Duration::from_secs(seconds.parse()?);
    let mut clients = Vec::new();
    for _ in 0..connections.parse::<usize>()? {
        let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
        tokio::spawn(connection);
        clients.push(client);
    }
    let runs = clients.iter().map(|client| async move {
        let statement = client.prepare("SELECT $1::int8 + 1").await?;
        let mut transactions = 0_u64;
        while Instant::now() < deadline {
            if in_flights {
                in_three_flights(client, &statement).await?;
            } else {
                one_at_a_time(client, &statement).await?;
            }
            transactions += 1;
        }
        anyhow::Ok(transactions)
    });
    let transactions: u64 = try_join_all(runs).await?.iter().sum();
    println!("transactions {transactions}");
    println!("cpu_ticks {}", own_cpu_ticks()?);
    Ok(())
}

async fn one_at_a_time(client: &Client, statement: &Statement) -> anyhow::Result<()> {
    client.batch_execute("BEGIN").await?;
    for n in 0..STATEMENTS {
        client.query(statement, &[&n]).await?;
    }
    client.batch_execute("COMMIT").await?;
    Ok(())
}

/// tokio-postgres sends a request when its future is first polled and reads the
/// answers in order, so futures polled together share the trip.
async fn in_three_flights(client: &Client, statement: &Statement) -> anyhow::Result<()> {
    let (begun, first) = tokio::join!(
        client.batch_execute("BEGIN"),
        client.query(statement, &[&0_i64])
    );
    begun?;
    first?;
    let middle: Vec<i64> = (1..STATEMENTS - 1).collect();
    let params: Vec<[&(dyn ToSql + Sync); 1]> = middle.iter().map(|n| [n as _]).collect();
    try_join_all(params.iter().map(|param| client.query(statement, param))).await?;
    let (last, committed) = tokio::join!(
        client.query(statement, &[&(STATEMENTS - 1)]),
        client.batch_execute("COMMIT")
    );
    last?;
    committed?;
    Ok(())
}

/// User and system CPU time of this process, in clock ticks (proc(5), fields 14 and 15).
fn own_cpu_ticks() -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap_or(0) + 2..]
        .split(' ')
        .collect();
    Ok(fields[11].parse::<u64>()? + fields[12].parse::<u64>()?)
}
