# The nightly the browser bundle is built with (scripts/build-web.sh); setup.d/web.sh installs it.
WEB_TOOLCHAIN=nightly-2026-05-20
