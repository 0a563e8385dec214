#!/usr/bin/env bash
# See lbk8s work: see README.md.
exec "$(dirname "${BASH_SOURCE[0]}")/demo/run" "$@"
