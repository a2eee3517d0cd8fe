//! Counted things in messages, in English: "1 race", "3 races" — never "race(s)".

/// `n` followed by `noun`, plural (an `s`) unless `n` is 1.
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1usize, "race"), "1 race");
        assert_eq!(count(0u64, "race"), "0 races");
        assert_eq!(count(2i64, "output element"), "2 output elements");
        assert_eq!(count(-1i64, "group"), "-1 groups");
    }
}
