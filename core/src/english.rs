//! Messages in English: counted things ("1 race", "3 races" — never "race(s)"), a sentence's start.

/// `n` followed by `noun`, plural (an `s`) unless `n` is 1.
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `text` as a sentence's start: its first letter in upper case ("statement 2" → "Statement 2";
/// "`C[i] = …`" stays as it is).
pub fn sentence_start(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{count, sentence_start};

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1usize, "race"), "1 race");
        assert_eq!(count(0u64, "race"), "0 races");
        assert_eq!(count(2i64, "output element"), "2 output elements");
        assert_eq!(count(-1i64, "group"), "-1 groups");
    }

    #[test]
    fn a_sentence_starts_with_a_capital_unless_it_starts_with_code() {
        assert_eq!(sentence_start("statement 2 runs"), "Statement 2 runs");
        assert_eq!(sentence_start("`c[i] = 1` runs"), "`c[i] = 1` runs");
        assert_eq!(sentence_start(""), "");
    }
}
