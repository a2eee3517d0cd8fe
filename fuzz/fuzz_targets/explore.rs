//! Arbitrary text through the whole pipeline: explore (transform, waits, printing, interpreter,
//! verification and everything else `explore` runs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ex = stagecraft::explore::explore(&text, &Default::default());
    for w in &ex.waits {
        for i in &w.instances {
            assert!(i.count >= 0, "negative wait count");
        }
    }
});
