"""PI's ``p4.tmp.P4DeviceConfig`` for controllers written for BMv2, and a launcher that runs them.

The P4 tutorials' ``p4runtime_lib`` imports ``p4.tmp.p4config_pb2`` to wrap BMv2's JSON
(``device_data``) before SetForwardingPipelineConfig. That module comes with PI (installed
next to ``simple_switch_grpc``), not with the ``p4runtime`` package, so a controller from the
tutorials fails to import without BMv2. This module builds the same message from its
descriptor (PI's ``p4/tmp/p4config.proto``: ``bool reassign = 1; Extras extras = 2; bytes
device_data = 3``, ``Extras`` holding ``map<string, string> kv = 1``) and, run as

    python -m dataplane.control.p4runtime.p4config CONTROLLER.py [ARGS...]

registers it as ``p4.tmp.p4config_pb2`` (only if PI's is not importable) and runs the
controller unchanged as ``__main__``. A controller that stops on a module the tutorials expect
to be installed is told where it comes from (``MISSING``): p4runtime-shell from this package's
``controllers`` extra (flowcache's controller imports ``p4runtime_sh``), ``p4runtime_lib`` from
the tutorials' ``utils`` folder.
"""
from __future__ import annotations

import os
import runpy
import sys
import types

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name="p4/tmp/p4config.proto", package="p4.tmp", syntax="proto3")
    config = f.message_type.add(name="P4DeviceConfig")
    extras = config.nested_type.add(name="Extras")
    entry = extras.nested_type.add(name="KvEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    extras.field.add(name="kv", number=1, type=_F.TYPE_MESSAGE, label=_F.LABEL_REPEATED,
                     type_name=".p4.tmp.P4DeviceConfig.Extras.KvEntry")
    config.field.add(name="reassign", number=1, type=_F.TYPE_BOOL, label=_F.LABEL_OPTIONAL)
    config.field.add(name="extras", number=2, type=_F.TYPE_MESSAGE, label=_F.LABEL_OPTIONAL,
                     type_name=".p4.tmp.P4DeviceConfig.Extras")
    config.field.add(name="device_data", number=3, type=_F.TYPE_BYTES, label=_F.LABEL_OPTIONAL)
    return f


def _message_class():
    # A pool of its own: PI's module, if also imported, registers the same names in the default pool.
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    desc = pool.FindMessageTypeByName("p4.tmp.P4DeviceConfig")
    if hasattr(message_factory, "GetMessageClass"):      # protobuf >= 4.21
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


P4DeviceConfig = _message_class()


def install() -> None:
    """Make ``from p4.tmp import p4config_pb2`` work: PI's module if installed, else this one."""
    try:
        import p4.tmp.p4config_pb2  # noqa: F401
        return
    except ImportError:
        pass
    import p4

    module = types.ModuleType("p4.tmp.p4config_pb2", "PI's p4config.proto, from dataplane.control.p4runtime.p4config")
    module.P4DeviceConfig = P4DeviceConfig
    package = types.ModuleType("p4.tmp")
    package.__path__ = []
    package.p4config_pb2 = module
    p4.tmp = package
    sys.modules["p4.tmp"] = package
    sys.modules["p4.tmp.p4config_pb2"] = module


# Top-level modules the tutorials' controllers import, and where a user gets them.
MISSING = {
    "p4runtime_sh": "p4runtime-shell, which the tutorials' flowcache controller uses: "
                    "pip install 'dataplane[controllers]' (from a checkout: pip install '.[controllers]')",
    "p4runtime_lib": "the P4 tutorials' own library: put their utils folder on the path "
                     "(PYTHONPATH=TUTORIALS/utils)",
}


def main(argv: list[str] | None = None) -> None:
    """Run a controller script with ``p4.tmp.p4config_pb2`` importable."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print("usage: python -m dataplane.control.p4runtime.p4config CONTROLLER.py [ARGS...]\n"
              "Runs CONTROLLER.py (a P4Runtime controller written for BMv2, e.g. the P4 tutorials')\n"
              "with PI's p4.tmp.p4config_pb2 importable.", file=sys.stderr)
        sys.exit(0 if args else 2)
    install()
    sys.argv = list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))   # as "python SCRIPT" does
    try:
        runpy.run_path(args[0], run_name="__main__")
    except ModuleNotFoundError as err:
        where = MISSING.get((err.name or "").split(".")[0])
        if where is not None:        # the controller's own traceback follows
            print(f"{args[0]}: no module {err.name!r}; it comes with {where}", file=sys.stderr)
        raise


if __name__ == "__main__":
    main()
