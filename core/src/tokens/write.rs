//! Counts → tokens: the printed program with each commit and wait line in token form.

use super::fit::fit;
use super::sites::{Runner, WaitSite};
use super::{TokenForm, WaitTranslation};
use crate::ir::Program;
use std::collections::BTreeMap;

pub(super) fn token_name(queue: i64) -> String {
    format!("q{queue}")
}

/// The token form of `program` (printed as `tir::print` prints it, with each commit and wait line
/// rewritten). `params` binds symbolic extents for the run that finds the tokens.
pub fn to_tokens(program: &Program, params: &BTreeMap<String, i64>) -> TokenForm {
    let printed = crate::tir::print(program);
    let mut runner = Runner::new(program);
    let complete = runner.run(program, params);
    let mut commits = runner.commits.iter();
    let mut waits = runner.waits.iter();
    let mut out = String::with_capacity(printed.text.len() * 2);
    let mut translations = Vec::new();
    for (lineno, line) in printed.text.lines().enumerate() {
        let indent = &line[..line.len() - line.trim_start().len()];
        let body = line.trim_start();
        if body.starts_with("with async_commit_queue(") {
            let site = commits.next();
            let name = site.and_then(|s| {
                if !complete || s.seqs.is_empty() {
                    return None;
                }
                fit(&s.samples.envs, &s.seqs)
                    .map(|e| (s.queue, crate::tir::print_index(program, &e)))
            });
            match name {
                Some((q, e)) => out.push_str(&format!(
                    "{indent}with async_start({q}) as {}[{e}]:\n",
                    token_name(q)
                )),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            continue;
        }
        if let Some(rest) = body.strip_prefix("with async_wait_queue(") {
            let site = waits.next();
            let count = rest
                .trim_end_matches("):")
                .split_once(", ")
                .map_or(String::new(), |(_, c)| c.to_string());
            let queue = site.map_or(0, |s| s.queue);
            let tokens = site.ok_or("no such wait").and_then(|s| {
                if !complete {
                    return Err("the loop is too long to run for its tokens");
                }
                wait_tokens(program, s)
            });
            match tokens {
                Ok(tokens) => {
                    let newest = tokens.last().cloned().unwrap_or_default();
                    out.push_str(&format!(
                        "{indent}with async_done({}):  # wait({queue}, {count}): {count} = tokens of queue {queue} committed after {newest}\n",
                        tokens.join(", ")
                    ));
                    translations.push(WaitTranslation {
                        line: lineno + 1,
                        queue,
                        count,
                        tokens,
                        kept_count: None,
                    });
                }
                Err(why) => {
                    out.push_str(&format!("{line}  # count form kept: {why}\n"));
                    translations.push(WaitTranslation {
                        line: lineno + 1,
                        queue,
                        count,
                        tokens: Vec::new(),
                        kept_count: Some(why.to_string()),
                    });
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    TokenForm {
        text: out,
        waits: translations,
    }
}

/// The tokens one wait site completes, each position one expression, or why they are not.
pub(super) fn wait_tokens(program: &Program, s: &WaitSite) -> Result<Vec<String>, &'static str> {
    if s.forced.is_empty() {
        return Err("it never runs");
    }
    let sizes: Vec<i64> = s.forced.iter().map(|(a, b)| (b - a + 1).max(0)).collect();
    let k = sizes.first().copied().unwrap_or(0);
    if k == 0 && sizes.iter().all(|&n| n == 0) {
        return Err("it completes no group that an earlier wait has not");
    }
    if sizes.iter().any(|&n| n != k) {
        return Err("it completes a different number of groups at different steps");
    }
    if k > 8 {
        return Err("it completes more than 8 groups at once");
    }
    (0..k)
        .map(|j| {
            let values: Vec<i64> = s.forced.iter().map(|(a, _)| a + j).collect();
            fit(&s.samples.envs, &values)
                .map(|e| {
                    format!(
                        "{}[{}]",
                        token_name(s.queue),
                        crate::tir::print_index(program, &e)
                    )
                })
                .ok_or("its tokens are not one expression of the loop variable")
        })
        .collect()
}
