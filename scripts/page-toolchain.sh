# The nightly the page's wasm is built with (scripts/page-cargo/cargo); scripts/setup.d/web.sh
# installs it with the standard library's source.
PAGE_TOOLCHAIN=nightly-2026-05-20
