"""What the CLI prints: a protobuf message as one line of JSON (the proto's field names)."""

from __future__ import annotations

import json

from google.protobuf import json_format
from google.protobuf.message import Message


def as_json(message: Message) -> str:
    data = json_format.MessageToDict(message, preserving_proto_field_name=True)
    return json.dumps(data, ensure_ascii=False)
