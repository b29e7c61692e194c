//! Rebuilds the server when a migration is added or changed: the migrations are
//! embedded at compile time (`store::migrations`), and a new file alone does not tell
//! cargo to compile again.

fn main() {
    println!("cargo::rerun-if-changed=migrations");
}
