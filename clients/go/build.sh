#!/usr/bin/env bash
# Build the Go gateway example into OUT_DIR with Debian's Go toolchain and its
# packaged grpc-go and protobuf (GOPATH mode: /usr/share/gocode), importing the
# generated code from generated/go as the module path agentd.dev/gen.
#   clients/go/build.sh OUT_DIR
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
ln -s "$here/agentdexample" "$gopath/src/agentd.dev/agentdexample"
unformatted="$(gofmt -l "$here/agentdexample")"
[[ -z "$unformatted" ]] || { echo "build.sh: not gofmt-formatted: $unformatted" >&2; exit 1; }
export GOPATH="$gopath:/usr/share/gocode" GO111MODULE=off GOFLAGS=-mod=mod GOCACHE="${GOCACHE:-$out/.gocache}"
unset GOFLAGS
cd "$gopath/src/agentd.dev/agentdexample"
go vet .
go build -o "$(cd "$out" && pwd)/agentdexample" .
