//! Writes committed together (group commit), on either database: each write becomes a
//! [`WriteJob`]; a batch of them runs in one transaction, each in its own savepoint so
//! one failing write leaves no trace and does not undo the others, and every answer is
//! delivered only once the batch's commit is known. Under load one commit pays for many
//! writes; alone, a write is a batch of one and needs no savepoint (docs/operations.md,
//! "Writes committed together").

use super::StoreError;
use super::sql::{Param, Row, Sql};
use tokio::sync::oneshot;

/// One write: runs and says whether it succeeded; the returned delivery hands its
/// result over once the batch's commit is known.
pub(super) type WriteJob = Box<dyn FnOnce(&mut dyn Sql) -> (bool, Delivery) + Send>;
/// Called with the commit's error, if the commit failed.
pub(super) type Delivery = Box<dyn FnOnce(Option<&str>) + Send>;

/// `f` as a job, and where its answer arrives.
pub(super) fn job<R: Send + 'static>(
    f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
) -> (WriteJob, oneshot::Receiver<Result<R, StoreError>>) {
    let (answer, answered) = oneshot::channel();
    let job: WriteJob = Box::new(move |sql| {
        let result = f(sql);
        let succeeded = result.is_ok();
        let delivery: Delivery = Box::new(move |commit_error| {
            let result = match commit_error {
                None => result,
                Some(error) => Err(StoreError::Commit(error.to_owned())),
            };
            // The caller may have gone (a timed-out request); the write stands.
            let _ = answer.send(result);
        });
        (succeeded, delivery)
    });
    (job, answered)
}

/// A connection a batch runs on.
pub(super) trait BatchConnection {
    /// Runs statements without parameters or rows (transaction control), separated by
    /// `;` and sent together.
    fn execute(&mut self, statements: &str) -> Result<(), String>;

    /// Runs a job on the connection.
    fn run(&mut self, job: WriteJob) -> (bool, Delivery);
}

/// Runs `batch` in one transaction opened by `begin`, each job of several in the
/// savepoint `write`, and delivers every answer after the commit. A savepoint's release
/// and the next one's start are one round trip, and the first goes with `begin`.
///
/// Once a transaction-control statement fails, the transaction may be aborted (on
/// PostgreSQL a `COMMIT` then rolls back without an error): the jobs left are not run
/// and every job is answered with that failure.
pub(super) fn commit(connection: &mut impl BatchConnection, batch: Vec<WriteJob>, begin: &str) {
    let savepoints = batch.len() > 1;
    let opening = if savepoints {
        format!("{begin}; SAVEPOINT write")
    } else {
        begin.to_owned()
    };
    if let Err(error) = connection.execute(&opening) {
        return fail_all(batch, &error);
    }
    let mut deliveries = Vec::with_capacity(batch.len());
    let mut failure: Option<String> = None;
    let mut failed_alone = false;
    for (n, job) in batch.into_iter().enumerate() {
        if failure.is_none()
            && n > 0
            && let Err(error) = connection.execute("RELEASE write; SAVEPOINT write")
        {
            failure = Some(error);
        }
        if let Some(error) = &failure {
            let (_, delivery) = job(&mut Unavailable(error));
            deliveries.push(delivery);
            continue;
        }
        let (succeeded, delivery) = connection.run(job);
        deliveries.push(delivery);
        if succeeded {
            continue;
        }
        if !savepoints {
            failed_alone = true;
        } else if let Err(error) = connection.execute("ROLLBACK TO write") {
            failure = Some(error);
        }
    }
    // A rolled-back batch is answered with its failure; a lone job that failed has
    // its own error; a committed batch, the commit's outcome.
    let error = match failure {
        Some(error) => {
            roll_back(connection);
            Some(error)
        }
        None if failed_alone => {
            roll_back(connection);
            None
        }
        None => connection.execute("COMMIT").err(),
    };
    for delivery in deliveries {
        delivery(error.as_deref());
    }
}

fn roll_back(connection: &mut impl BatchConnection) {
    if let Err(error) = connection.execute("ROLLBACK") {
        tracing::error!(cause = %error, "rolling back a batch of writes failed");
    }
}

/// Answers every job of a batch that could not start with `error`.
pub(super) fn fail_all(batch: Vec<WriteJob>, error: &str) {
    for job in batch {
        let (_, delivery) = job(&mut Unavailable(error));
        delivery(Some(error));
    }
}

/// Stands in for a connection a job cannot use: every statement fails.
struct Unavailable<'e>(&'e str);

impl Sql for Unavailable<'_> {
    fn query(&mut self, _sql: &str, _params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        Err(StoreError::Commit(self.0.to_owned()))
    }
}
