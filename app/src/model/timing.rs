//! What the newest exploration and its parts cost, as the header shows it: the worker's own
//! milliseconds for each, and the round trip the page waited for the exploration.

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// Which request (`snapshot::Shown::id`) this is.
    pub serial: u64,
    /// Exploring, in the worker.
    pub explore: f64,
    /// From the page's request to the exploration's answer read: exploring, and the messages both
    /// ways.
    pub round_trip: f64,
    pub verify: Option<f64>,
    pub simulate: Option<f64>,
    /// The newest machine-level check of the emitted kernel (the Code pane's "Check on the
    /// machine"), when one arrived for this exploration.
    pub machine: Option<f64>,
}
