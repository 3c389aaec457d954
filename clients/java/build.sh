#!/usr/bin/env bash
# Build the Java gateway example into OUT_DIR with Debian's JDK, grpc-java and
# protobuf-java jars (/usr/share/java), the committed generated/java code, and
# two pieces Debian does not package as jars: com.google.rpc (generated from the
# googleapis-common-protos .proto files; com.google.api too, which the vendored A2A
# contract's code imports) and io.grpc.health.v1 (generated from
# clients/java/proto). OUT_DIR/agentdexample runs it.
#   clients/java/build.sh OUT_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$(mkdir -p "${1:?usage: build.sh OUT_DIR}" && cd "$1" && pwd)"
for tool in javac java protoc grpc_java_plugin; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing (.ci/run installs the Debian packages)" >&2; exit 3; }
done
jars=(grpc-api grpc-core grpc-context grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub
  protobuf guava perfmark-api gson netty-buffer netty-codec netty-codec-http netty-codec-http2
  netty-codec-socks netty-common netty-handler netty-handler-proxy netty-resolver netty-transport
  geronimo-annotation-1.3-spec error_prone_annotations)
classpath=""
for jar in "${jars[@]}"; do
  [[ -f /usr/share/java/$jar.jar ]] || { echo "build.sh: /usr/share/java/$jar.jar is missing (.ci/run installs the Debian packages)" >&2; exit 3; }
  classpath="$classpath:/usr/share/java/$jar.jar"
done
classpath="${classpath#:}"
python="${PYTHON:-$root/.venv/bin/python}"
common_protos="$("$python" -c 'import google.rpc, os; print(os.path.dirname(os.path.dirname(google.rpc.__path__[0])))')"
well_known="$("$python" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/classes"
protoc --proto_path="$common_protos" --proto_path="$well_known" --java_out="$work/src" \
  google/rpc/status.proto google/rpc/error_details.proto \
  google/api/annotations.proto google/api/http.proto google/api/client.proto \
  google/api/field_behavior.proto google/api/launch_stage.proto
protoc --proto_path="$here/proto" --plugin=protoc-gen-grpc-java="$(command -v grpc_java_plugin)" \
  --java_out="$work/src" --grpc-java_out="$work/src" grpc/health/v1/health.proto
# Generated code compiles without lint; the example itself with every warning an error.
find "$work/src" "$root/generated/java" -name '*.java' > "$work/generated.txt"
javac -nowarn -d "$work/classes" -cp "$classpath" @"$work/generated.txt"
javac -Xlint:all -Xlint:-processing -Werror -d "$work/classes" -cp "$classpath:$work/classes" \
  $(find "$here/src" -name '*.java')
rm -rf "$out/classes"
cp -r "$work/classes" "$out/classes"
cat > "$out/agentdexample" <<LAUNCH
#!/bin/sh
exec java -cp "$out/classes:$classpath" dev.agentd.example.AgentdExample "\$@"
LAUNCH
chmod +x "$out/agentdexample"
