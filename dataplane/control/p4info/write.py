"""P4Info files: the format follows the extension, as p4c's ``--p4runtime-files`` does."""
from __future__ import annotations

from pathlib import Path

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2

from dataplane.control.p4info.ids import P4InfoError

TEXT = (".txtpb", ".pb.txt", ".txt")
BINARY = (".bin", ".pb")
JSON = (".json",)


def file_format(path: str | Path) -> str:
    """``text``, ``binary`` or ``json`` for ``path``'s extension; an unknown one is an error."""
    name = str(path).lower()
    for kind, exts in (("text", TEXT), ("binary", BINARY), ("json", JSON)):
        if name.endswith(exts):
            return kind
    raise P4InfoError(f"{path}: unknown P4Info file kind; known suffixes are "
                      f"{', '.join(TEXT + BINARY + JSON)}")


def write_p4info(info: p4info_pb2.P4Info, path: str | Path) -> None:
    """Write ``info`` to ``path`` in the format its extension names."""
    kind = file_format(path)
    try:
        if kind == "binary":
            Path(path).write_bytes(info.SerializeToString())
        elif kind == "json":
            Path(path).write_text(json_format.MessageToJson(info, indent=2) + "\n")
        else:
            Path(path).write_text("# proto-file: p4/config/v1/p4info.proto\n"
                                  "# proto-message: p4.config.v1.P4Info\n\n" + text_format.MessageToString(info))
    except OSError as e:
        raise P4InfoError(f"{path}: cannot write P4Info: {e.strerror or e}") from None


def read_p4info(path: str | Path) -> p4info_pb2.P4Info:
    """Read a P4Info file written in the format its extension names."""
    kind = file_format(path)
    info = p4info_pb2.P4Info()
    try:
        if kind == "binary":
            info.ParseFromString(Path(path).read_bytes())
        elif kind == "json":
            json_format.Parse(Path(path).read_text(), info)
        else:
            text_format.Parse(Path(path).read_text(), info)
    except OSError as e:
        raise P4InfoError(f"{path}: cannot read P4Info: {e.strerror or e}") from None
    except (text_format.ParseError, json_format.ParseError, Exception) as e:  # DecodeError has no common base
        raise P4InfoError(f"{path}: not a valid P4Info file: {e}") from None
    return info
