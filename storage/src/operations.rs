//! The operation outbox (docs/profile.md): the profile the server last confirmed and
//! the line's summary (under `meta`), and the device's profile operations (store
//! `operations`, by their place in line). Every step of `core`'s [`ProfileQueue`]
//! runs inside one readwrite transaction that loads the ends of the line, applies the
//! step and stores its writes, so two tabs queuing at once take turns and "saved"
//! means committed.
//!
//! A step reads the confirmed profile, the summary, the last key and the first
//! records of the store — the operations kept to be shown, which come first, and the
//! first queued ones the step holds ([`LOADED_IN_LINE`] to queue a change, more for a
//! flush's) — a page or two, however long the line.

use crate::StorageError;
use crate::db::{Db, META, OPERATIONS};
use crate::meta::{get, put};
use crate::records::{from_js, to_js};
use futures::future::try_join_all;
use futures::try_join;
use keydo_core::profile::{
    Confirmed, LOADED_IN_LINE, LineSummary, LocalProfile, ProfileQueue, QueuedOperation, Write,
};
use rexie::{Direction, KeyRange, Store, Transaction, TransactionMode};
use wasm_bindgen::JsValue;

const CONFIRMED_KEY: &str = "confirmedProfile";
const SUMMARY_KEY: &str = "operationsSummary";
/// The queue's [`LocalProfile`] as its last step left it.
const LOCAL_KEY: &str = "localProfile";
/// Records read at a time from the head of the store.
const PAGE: u32 = 8;

impl Db {
    /// The ends of the stored line. Before the first save, nothing is confirmed
    /// ([`Confirmed::none`]).
    pub async fn profile_queue(&self) -> Result<ProfileQueue, StorageError> {
        self.transact(&[META, OPERATIONS], TransactionMode::ReadOnly, async |tx| {
            Ok(load(tx, LOADED_IN_LINE).await?.0)
        })
        .await
    }

    /// What the last step on the queue left it showing: one record, read at a page's
    /// start before the queue itself. Before any step, with no operation stored, what
    /// an empty line shows: the confirmed profile, or the defaults. `None` when
    /// operations are stored without the record (a release that kept none changed the
    /// line): only the queue tells. The record may also be behind a line such a
    /// release changed since: the queue stays the truth.
    pub async fn local_profile(&self) -> Result<Option<LocalProfile>, StorageError> {
        // One read when the record is there, as it is after any step: the others
        // only without it.
        self.transact(&[META, OPERATIONS], TransactionMode::ReadOnly, async |tx| {
            let meta = tx.store(META)?;
            if let Some(local) = get::<LocalProfile>(&meta, LOCAL_KEY).await? {
                return Ok(Some(local));
            }
            if tx.store(OPERATIONS)?.count(None).await? > 0 {
                return Ok(None);
            }
            let confirmed = get::<Confirmed>(&meta, CONFIRMED_KEY)
                .await?
                .unwrap_or_else(Confirmed::none);
            Ok(Some(LocalProfile {
                profile: confirmed.profile,
                version: confirmed.version,
                in_line: 0,
            }))
        })
        .await
    }

    /// Runs one step on the stored queue and commits its writes, with the
    /// [`LocalProfile`] it leaves; returns the step's result and the queue after it.
    pub async fn update_profile_queue<R>(
        &self,
        step: impl FnOnce(&mut ProfileQueue) -> (R, Vec<Write>),
    ) -> Result<(R, ProfileQueue), StorageError> {
        self.update_profile_queue_holding(LOADED_IN_LINE, step)
            .await
    }

    /// [`Db::update_profile_queue`] on a queue that holds the first `holding` queued
    /// operations (a flush's step: `keydo_core::profile::held_for_sending`).
    pub async fn update_profile_queue_holding<R>(
        &self,
        holding: usize,
        step: impl FnOnce(&mut ProfileQueue) -> (R, Vec<Write>),
    ) -> Result<(R, ProfileQueue), StorageError> {
        self.transact(
            &[META, OPERATIONS],
            TransactionMode::ReadWrite,
            async |tx| {
                let (mut queue, summarized) = load(tx, holding).await?;
                let meta = tx.store(META)?;
                if summarized {
                    put(&meta, SUMMARY_KEY, queue.summary()).await?;
                }
                let (result, writes) = step(&mut queue);
                let local = queue.local_profile();
                let operations = tx.store(OPERATIONS)?;
                // Issued together, in order (each future issues its request when first
                // polled), the local profile last: the transaction runs them in that
                // order, and the step waits for one round trip to the database instead
                // of one per write.
                let written =
                    try_join_all(Write::coalesced(writes).into_iter().map(|write| async {
                        match write {
                            Write::Put(operation) => {
                                let seq = JsValue::from(operation.seq as f64);
                                operations.put(&to_js(&operation)?, Some(&seq)).await?;
                            }
                            Write::Delete(seq) => {
                                operations.delete(JsValue::from(seq as f64)).await?
                            }
                            Write::Confirmed(confirmed) => {
                                put(&meta, CONFIRMED_KEY, &confirmed).await?
                            }
                            Write::Summary(summary) => put(&meta, SUMMARY_KEY, &summary).await?,
                        }
                        Ok::<_, StorageError>(())
                    }));
                try_join!(written, put(&meta, LOCAL_KEY, &local))?;
                Ok((result, queue))
            },
        )
        .await
    }
}

/// Loads the ends of the line, holding its first `holding` queued operations; `true`
/// when its summary had to be made from the whole line, to be stored: a line stored by
/// an earlier release, which kept none, or changed by a tab of one since.
///
/// The four reads go out together: each waits for the database, and a page's main
/// thread may render between one answer and the next request (docs/profile.md).
async fn load(tx: &Transaction, holding: usize) -> Result<(ProfileQueue, bool), StorageError> {
    let meta = tx.store(META)?;
    let operations = tx.store(OPERATIONS)?;
    let (confirmed, summary, held, last_seq) = try_join!(
        get::<Confirmed>(&meta, CONFIRMED_KEY),
        get::<LineSummary>(&meta, SUMMARY_KEY),
        head_of_line(&operations, holding),
        last_seq(&operations),
    )?;
    let confirmed = confirmed.unwrap_or_else(Confirmed::none);
    if let Some(summary) = summary
        && summary.holds_for(&held, last_seq, holding)
    {
        return Ok((
            ProfileQueue::loaded(confirmed, held, summary, holding),
            false,
        ));
    }
    let whole: Vec<QueuedOperation> = operations
        .get_all(None, None)
        .await?
        .into_iter()
        .map(from_js)
        .collect::<Result<_, _>>()?;
    Ok((ProfileQueue::new(confirmed, whole, holding), true))
}

/// The store's last place in line, if it holds any operation.
async fn last_seq(operations: &Store) -> Result<Option<u64>, StorageError> {
    Ok(operations
        .scan(None, Some(1), None, Some(Direction::Prev))
        .await?
        .first()
        .and_then(|(key, _)| key.as_f64())
        .map(|seq| seq as u64))
}

/// The kept operations, which come first, and the first `holding` queued: pages of
/// at least [`PAGE`] records until those are in.
async fn head_of_line(
    operations: &Store,
    holding: usize,
) -> Result<Vec<QueuedOperation>, StorageError> {
    let page_size = PAGE.max(holding as u32 + 1);
    let mut held: Vec<QueuedOperation> = Vec::new();
    loop {
        let after = held
            .last()
            .map(|last| KeyRange::lower_bound(&JsValue::from(last.seq as f64), Some(true)))
            .transpose()
            .map_err(rexie::Error::from)?;
        let page = operations.get_all(after, Some(page_size)).await?;
        let full = page.len() == page_size as usize;
        for value in page {
            held.push(from_js(value)?);
        }
        if !full || held.iter().filter(|op| op.is_queued()).count() >= holding {
            return Ok(held);
        }
    }
}
