//! Test support shared by the integration tests.

pub mod copy_loops;
