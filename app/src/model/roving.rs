//! Keyboard movement within a list that is one tab stop (WAI-ARIA's roving tabindex): the tabs, the
//! waits' rows, a program's wait lines, the timeline's bars.

/// Which way a list runs, which decides the arrow keys that move through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Left and right (tabs, a timeline's bars); up and down move too.
    Horizontal,
    /// Up and down only (rows, lines): left and right stay the page's.
    Vertical,
}

/// The item a key moves to from `at` in a list of `len`, or `None` when the key is not a
/// movement; moving off either end wraps around, as the WAI-ARIA tabs pattern does.
pub fn next(key: &str, axis: Axis, at: usize, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let at = at.min(len - 1);
    let forward = match (key, axis) {
        ("ArrowDown", _) | ("ArrowRight", Axis::Horizontal) => true,
        ("ArrowUp", _) | ("ArrowLeft", Axis::Horizontal) => false,
        ("Home", _) => return Some(0),
        ("End", _) => return Some(len - 1),
        _ => return None,
    };
    Some(if forward {
        (at + 1) % len
    } else {
        (at + len - 1) % len
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_move_and_wrap_home_and_end_jump_other_keys_do_nothing() {
        let h = Axis::Horizontal;
        assert_eq!(next("ArrowRight", h, 0, 5), Some(1));
        assert_eq!(next("ArrowRight", h, 4, 5), Some(0));
        assert_eq!(next("ArrowLeft", h, 0, 5), Some(4));
        assert_eq!(next("ArrowDown", h, 2, 5), Some(3));
        assert_eq!(next("Home", h, 3, 5), Some(0));
        assert_eq!(next("End", h, 0, 5), Some(4));
        assert_eq!(next("Enter", h, 0, 5), None);
        assert_eq!(next("ArrowRight", Axis::Vertical, 0, 5), None);
        assert_eq!(next("ArrowUp", Axis::Vertical, 0, 5), Some(4));
        assert_eq!(next("ArrowDown", h, 0, 0), None);
        assert_eq!(
            next("ArrowDown", h, 9, 3),
            Some(0),
            "a stale index is clamped"
        );
    }
}
