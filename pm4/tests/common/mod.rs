//! The reference folder beside the repository and its dword files, for the integration tests
//! (from the test kit).

#![allow(unused_imports)]

pub use pops_testkit::{read_dwords, reference};
