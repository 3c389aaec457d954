"""Server reflection under both names clients use: grpc.reflection.v1 and v1alpha.

grpcio-reflection serves only v1alpha. The v1 protocol has the same messages
under another package, so the v1 service is the v1alpha servicer behind the
v1 method name, and its descriptor (a renamed copy of v1alpha's) is added to
the pool so that reflection can describe itself under both names.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer

V1_SERVICE = "grpc.reflection.v1.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"


def _register_v1_descriptor() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = V1_FILE
    proto.package = "grpc.reflection.v1"
    proto.options.Clear()
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(".grpc.reflection.v1alpha."):
                field.type_name = field.type_name.replace(".v1alpha.", ".v1.", 1)
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(".v1alpha.", ".v1.", 1)
            method.output_type = method.output_type.replace(".v1alpha.", ".v1.", 1)
    pool.Add(proto)


def enable(server: grpc.aio.Server, service_names: list[str]) -> None:
    """Serve reflection (v1 and v1alpha) for `service_names` and the reflection services."""
    _register_v1_descriptor()
    names = [*service_names, reflection.SERVICE_NAME, V1_SERVICE]
    servicer = ReflectionServicer(names)
    reflection.enable_server_reflection(names, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    generic: Any = grpc.method_handlers_generic_handler(
        V1_SERVICE, {"ServerReflectionInfo": handler}
    )
    server.add_generic_rpc_handlers((generic,))
