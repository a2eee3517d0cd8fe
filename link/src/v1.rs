//! Version 1 of the link format: the state as one JSON object of six fields (and, when set, the
//! `lesson` open and the `counts` moved by hand), in the order and
//! spelling the serde encoder of the first links wrote them (`{"text":…,"form":…,"pane":…,
//! "params":{…},"zoom":…,"target":…}`). Missing fields keep their defaults and unknown ones are
//! ignored, so a field added later is read as its default by this version and ignored by older ones.
//! Added since, each written only when not at its default: `"step"` (the step-through's position)
//! and `"completion"` (`"as_timed"`), `"view"` (`"tokens"`, `"tvm-0.27"`, `"check"`)
//! and `"pipelined"` (the program checked against the loop), `"pinned"` (the text whose schedule is
//! compared with the current one).

use crate::state::{CodeTarget, Pane, ProgramView, State};
use serde_json::Value;
use stagecraft::explore::{CountOverride, WaitKey};
use stagecraft::ir::SectionKind;
use stagecraft::pipelined::Form;
use stagecraft::steps::CompletionModel;

fn form_name(form: Form) -> &'static str {
    match form {
        Form::Rolled => "rolled",
        Form::Peeled => "peeled",
    }
}

/// Any other name (none was ever written) shows the rolled form, as the first links' reader did.
fn form_of(name: &str) -> Form {
    if name == "peeled" {
        Form::Peeled
    } else {
        Form::Rolled
    }
}

pub fn to_json(s: &State) -> String {
    let mut out = String::with_capacity(s.text.len() + 96);
    out.push_str("{\"text\":");
    write_string(&mut out, &s.text);
    out.push_str(",\"form\":");
    write_string(&mut out, form_name(s.form));
    out.push_str(",\"pane\":");
    write_string(&mut out, s.pane.name());
    out.push_str(",\"params\":");
    write_int_map(&mut out, &s.params);
    out.push_str(",\"zoom\":");
    out.push_str(&s.zoom.to_string());
    out.push_str(",\"target\":");
    write_string(&mut out, s.target.name());
    // Written only when not at their defaults: a link without them reads as before.
    if s.step > 0 {
        out.push_str(",\"step\":");
        out.push_str(&s.step.to_string());
    }
    if s.completion == CompletionModel::AsTimed {
        out.push_str(",\"completion\":\"as_timed\"");
    }
    if s.view != ProgramView::Stagecraft {
        out.push_str(",\"view\":");
        write_string(&mut out, s.view.name());
    }
    if !s.pipelined.is_empty() {
        out.push_str(",\"pipelined\":");
        write_string(&mut out, &s.pipelined);
    }
    // Written only when set: a link without them reads as every earlier link did.
    if let Some(lesson) = &s.lesson {
        out.push_str(",\"lesson\":");
        write_string(&mut out, lesson);
    }
    if let Some(pinned) = &s.pinned {
        out.push_str(",\"pinned\":");
        write_string(&mut out, pinned);
    }
    if !s.counts.is_empty() {
        out.push_str(",\"counts\":[");
        for (k, c) in s.counts.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            out.push_str("{\"queue\":");
            out.push_str(&c.wait.queue.to_string());
            out.push_str(",\"section\":");
            write_string(&mut out, section_name(c.wait.section));
            if let Some(before) = &c.wait.before {
                out.push_str(",\"before\":");
                write_string(&mut out, before);
            }
            out.push_str(",\"occurrence\":");
            out.push_str(&c.wait.occurrence.to_string());
            out.push_str(",\"delta\":");
            out.push_str(&c.delta.to_string());
            out.push('}');
        }
        out.push(']');
    }
    out.push('}');
    out
}

/// Reads the JSON object of a v1 link: missing fields keep their defaults, unknown ones are
/// ignored, a field of the wrong type makes the whole state unreadable. A pane this version does
/// not have shows the first; a code target it does not emit is kept (`CodeTarget::Unavailable`).
pub fn from_json(text: &str) -> Option<State> {
    let value: Value = serde_json::from_str(text).ok()?;
    let Value::Object(fields) = &value else {
        return None;
    };
    let mut s = State::default();
    let string = |key: &str| -> Option<Option<&str>> {
        match fields.get(key) {
            None => Some(None),
            Some(Value::String(v)) => Some(Some(v.as_str())),
            Some(_) => None,
        }
    };
    // An integer, not a number with a fraction or an exponent written as a float.
    let int = |key: &str| -> Option<Option<i64>> {
        match fields.get(key) {
            None => Some(None),
            Some(v) => v.as_i64().map(Some),
        }
    };
    if let Some(text) = string("text")? {
        s.text = text.to_string();
    }
    if let Some(form) = string("form")? {
        s.form = form_of(form);
    }
    if let Some(pane) = string("pane")? {
        s.pane = Pane::parse(pane).unwrap_or_default();
    }
    if let Some(target) = string("target")? {
        s.target = CodeTarget::parse(target);
    }
    if let Some(view) = string("view")? {
        s.view = ProgramView::parse(view);
    }
    if let Some(pipelined) = string("pipelined")? {
        s.pipelined = pipelined.to_string();
    }
    if let Some(completion) = string("completion")? {
        s.completion = match completion {
            "as_timed" => CompletionModel::AsTimed,
            _ => CompletionModel::Latest,
        };
    }
    if let Some(step) = int("step")? {
        s.step = u64::try_from(step).ok()?;
    }
    if let Some(zoom) = int("zoom")? {
        s.zoom = u32::try_from(zoom).ok()?;
    }
    match fields.get("params") {
        None => {}
        Some(Value::Object(params)) => {
            for (name, v) in params {
                s.params.insert(name.clone(), v.as_i64()?);
            }
        }
        Some(_) => return None,
    }
    if let Some(lesson) = string("lesson")? {
        s.lesson = Some(lesson.to_string());
    }
    if let Some(pinned) = string("pinned")? {
        s.pinned = Some(pinned.to_string());
    }
    match fields.get("counts") {
        None => {}
        Some(Value::Array(items)) => {
            s.counts = items.iter().map(count_override).collect::<Option<_>>()?;
        }
        Some(_) => return None,
    }
    Some(s)
}

/// `text` as a JSON string, escaped as serde_json escapes it (the first links' encoder).
pub(crate) fn write_string(out: &mut String, text: &str) {
    // Serializing a string cannot fail.
    out.push_str(&serde_json::to_string(text).unwrap_or_default());
}

/// `{"name": value, …}` of integer values.
fn write_int_map(out: &mut String, map: &std::collections::BTreeMap<String, i64>) {
    out.push('{');
    for (k, (name, value)) in map.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        write_string(out, name);
        out.push(':');
        out.push_str(&value.to_string());
    }
    out.push('}');
}

fn section_name(section: SectionKind) -> &'static str {
    match section {
        SectionKind::Prologue => "prologue",
        SectionKind::Body => "body",
        SectionKind::Epilogue => "epilogue",
    }
}

/// One count moved by hand; a field of the wrong type makes the state unreadable, as elsewhere.
fn count_override(v: &Value) -> Option<CountOverride> {
    let int = |key: &str| v.get(key).and_then(Value::as_i64);
    let section = match v.get("section") {
        Some(Value::String(name)) => match name.as_str() {
            "prologue" => SectionKind::Prologue,
            "body" => SectionKind::Body,
            "epilogue" => SectionKind::Epilogue,
            _ => return None,
        },
        _ => return None,
    };
    let before = match v.get("before") {
        None => None,
        Some(Value::String(b)) => Some(b.clone()),
        Some(_) => return None,
    };
    Some(CountOverride {
        wait: WaitKey {
            queue: int("queue")?,
            section,
            before,
            occurrence: u32::try_from(int("occurrence").unwrap_or(0)).ok()?,
        },
        delta: int("delta")?,
    })
}
