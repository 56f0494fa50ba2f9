# Sourced by the tests that export Perfetto files (not a test itself):
#   perfetto_validate SRC TRACEWIRE FILE [TRACE]
# decodes FILE with protoc against Perfetto's protos and checks Perfetto's
# rules (tests/perfetto_check.py); with TRACE, also that the sched data
# switches every task in as often as `tracewire analyze TRACE` counts.
# The protos come from TW_PERFETTO_PROTO (cmake -DPERFETTO_PROTO; `make`
# passes ../shared/third_party/perfetto/perfetto_trace.proto). Without
# them or protoc: a failure in CI, a loud note elsewhere.
perfetto_validate() {
  local src=$1 tw=$2 file=$3 trace=${4:-}
  if ! command -v protoc >/dev/null || [ ! -f "${TW_PERFETTO_PROTO:-}" ]; then
    if [ "${CI:-}" = true ]; then
      echo "FAIL: protoc or perfetto_trace.proto missing (Debian package protobuf-compiler; PERFETTO_PROTO='${TW_PERFETTO_PROTO:-}')" >&2
      return 1
    fi
    echo "NOTE: $file not checked against Perfetto's protos: protoc (Debian package 'protobuf-compiler') or PERFETTO_PROTO missing" >&2
    return 0
  fi
  if [ -n "$trace" ]; then
    python3 "$src/tests/perfetto_check.py" --analyze "$tw" "$trace" "$TW_PERFETTO_PROTO" "$file"
  else
    python3 "$src/tests/perfetto_check.py" "$TW_PERFETTO_PROTO" "$file"
  fi
}
