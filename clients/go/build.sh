#!/usr/bin/env bash
# Build the Go examples into OUT_DIR (agentdexample, the gateway; policyexample, an
# operator's policy service for guardrails) with Debian's Go toolchain and its
# packaged grpc-go and protobuf (GOPATH mode: /usr/share/gocode), importing the
# generated code from generated/go as the module path agentd.dev/gen.
#   clients/go/build.sh OUT_DIR [EXAMPLE...]   (default: every example)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: build.sh OUT_DIR}"
for tool in go gofmt; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing (Debian package golang-go)" >&2; exit 3; }
done
for package in google.golang.org/grpc google.golang.org/protobuf google.golang.org/genproto; do
  [[ -d /usr/share/gocode/src/$package ]] || {
    echo "build.sh: /usr/share/gocode/src/$package is missing (.ci/run installs the Debian packages)" >&2; exit 3; }
done
mkdir -p "$out"
gopath="$(mktemp -d)"
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src/agentd.dev"
ln -s "$root/generated/go" "$gopath/src/agentd.dev/gen"
examples=(agentdexample policyexample)
(($# > 1)) && examples=("${@:2}")
for example in "${examples[@]}"; do
  ln -s "$here/$example" "$gopath/src/agentd.dev/$example"
  unformatted="$(gofmt -l "$here/$example")"
  [[ -z "$unformatted" ]] || { echo "build.sh: not gofmt-formatted: $unformatted" >&2; exit 1; }
done
export GOPATH="$gopath:/usr/share/gocode" GO111MODULE=off GOFLAGS=-mod=mod GOCACHE="${GOCACHE:-$out/.gocache}"
unset GOFLAGS
out="$(cd "$out" && pwd)"
for example in "${examples[@]}"; do
  (cd "$gopath/src/agentd.dev/$example" && go vet . && go build -o "$out/$example" .)
done
